"""Every number a Phase 02 figure's alt text states is computed here from its recorded data.json.

An alt text is the figure for a learner who cannot see it, so it must say what the data say:
re-recording a measured figure without updating its alt text fails this test.
"""

from __future__ import annotations

import json
import math

import pytest

from tests.packaged import packaged_course


def _lesson(lesson_id: str):
    return next(x for x in packaged_course().lessons() if x.id == lesson_id)


def _alt_and_data(lesson_id: str) -> tuple[str, dict]:
    lesson = _lesson(lesson_id)
    data = json.loads(lesson.figure.data_path.read_text(encoding="utf-8"))["data"]
    return " ".join(lesson.figure.alt.split()), data


def sig1(value: float) -> str:
    """``value`` to one significant figure, as prose writes it: 0.3, 40, 5,000."""
    exponent = math.floor(math.log10(abs(value)))
    rounded = round(value, -exponent)
    return f"{rounded:,.{max(0, -exponent)}f}"


def sci(value: float) -> str:
    """``value`` as 2e-8: one significant figure in scientific notation, no padding."""
    mantissa, exponent = f"{value:.0e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def test_helpers() -> None:
    assert [sig1(v) for v in (0.2583, 39.46, 4947.0, 0.0063, 74.0)] == \
        ["0.3", "40", "5,000", "0.006", "70"]
    assert [sci(v) for v in (1.711e-08, 2.555e-10, 0.1014e-6)] == ["2e-8", "3e-10", "1e-7"]


def test_jit_figure_alt_text_matches_its_data() -> None:
    alt, data = _alt_and_data("transforms-01")
    rows = data["rows"]
    ratios = [row["first_call"] / row["later_call"] for row in rows]
    ms = {key: [row[key] * 1e3 for row in rows] for key in ("trace", "lower", "compile")}

    def span(key: str) -> str:
        return f"{sig1(min(ms[key]))} to {sig1(max(ms[key]))} ms"

    assert (f"Tracing alone takes {span('trace')}, lowering {span('lower')} and compiling "
            f"{span('compile')}") in alt
    assert (f"later calls are {sig1(min(ratios))} to {sig1(max(ratios))} times shorter "
            "than a first call") in alt
    later = [row["later_call"] for row in rows]
    assert later.index(max(later)) == len(rows) - 1 and data["sizes"][-1] == 1_000_000
    assert "the longest later call is the million-element one" in alt
    sizes = data["sizes"]  # "none of them grows in proportion to the data"
    for key in ("trace", "lower", "compile"):
        assert ms[key][-1] / ms[key][0] < sizes[-1] / sizes[0] / 100


def test_grad_figure_alt_text_matches_its_data() -> None:
    alt, data = _alt_and_data("transforms-02")
    f32, f64 = data["errors"]["float32"], data["errors"]["float64"]
    steps = data["steps"]
    plateau = [e for h, e in zip(steps, f32, strict=True) if 1e-4 <= h <= 1e-2]
    assert len({sci(e) for e in plateau}) == 1  # "stays there" from 1e-2 to 1e-4
    assert (f"float32 curve falls from about {sci(f32[0])} at h = 1e-1 to about "
            f"{sci(plateau[0])}, stays there from h = 1e-2 to 1e-4, then rises to about "
            f"{f32[-1]:.2g} at h = 1e-7") in alt
    best = min(range(len(f64)), key=f64.__getitem__)
    assert (f"float64 curve falls by a factor 100 per decade to about {sci(f64[best])} at h = "
            f"{sci(steps[best])} and rises again to about {sci(f64[-1])} at h = 1e-7") in alt
    for k in range(best):  # "a factor 100 per decade", within a factor 2
        assert 50 < f64[k] / f64[k + 1] < 200 or k + 1 == best


def test_vmap_figure_alt_text_matches_its_data() -> None:
    alt, data = _alt_and_data("transforms-03")
    rows, sizes = data["rows"], data["sizes"]
    ratios = [f"{round(r['loop'] / r['vmap']):,}" for r in rows]
    assert (f"the loop takes {', '.join(ratios[:-1])} and {ratios[-1]} times as long as vmap at "
            f"{', '.join(map(str, sizes[:-1]))} and {sizes[-1]} examples") in alt
    loop_ms = [r["loop"] * 1e3 for r in rows]
    assert (f"from about {sig1(loop_ms[0])} ms at {sizes[0]} examples to about "
            f"{sig1(loop_ms[-1])} ms at {sizes[-1]}") in alt
    small = [r[k] * 1e3 for r in rows[:-1] for k in ("vmap", "by_hand")]
    last = [rows[-1][k] * 1e3 for k in ("vmap", "by_hand")]
    for group in (small, last):  # "together": every value within 25% of the group's centre
        centre = math.exp(sum(map(math.log, group)) / len(group))
        assert all(abs(v / centre - 1) < 0.25 for v in group)
    centre_small = math.exp(sum(map(math.log, small)) / len(small))
    centre_last = math.exp(sum(map(math.log, last)) / len(last))
    assert (f"lie together near {sig1(centre_small)} ms up to {sizes[-2]} examples and reach "
            f"about {sig1(centre_last)} ms at {sizes[-1]}") in alt


def _first_near_floor(errors: list[float]) -> int:
    """The first step whose error is within ten times of the final (converged) error."""
    return next(n for n, e in enumerate(errors) if e <= 10 * errors[-1])


def test_control_flow_figure_alt_text_matches_its_data() -> None:
    alt, data = _alt_and_data("transforms-04")
    by_a = {row["a"]: row for row in data["series"]}
    assert set(by_a) == {2.0, 50.0, 1000.0}
    value_floor = {a: sci(row["value_error"][-1]) for a, row in by_a.items()}
    assert value_floor[2.0] == value_floor[1000.0]
    assert (f"the values of a = 2 and a = 1000 at about {value_floor[2.0]}, the value of a = 50 "
            f"at about {value_floor[50.0]}") in alt
    slope_floors = [row["slope_error"][-1] for row in by_a.values()]
    assert f"the derivatives between {sci(min(slope_floors))} and {sci(max(slope_floors))}" in alt
    value_steps = ", ".join(str(_first_near_floor(by_a[a]["value_error"])) for a in by_a)
    slope_steps = ", ".join(str(_first_near_floor(by_a[a]["slope_error"])) for a in by_a)
    value_steps = value_steps.rsplit(", ", 1)
    slope_steps = slope_steps.rsplit(", ", 1)
    assert (f"the value gets there after {value_steps[0]} and {value_steps[1]} steps for a = 2, "
            f"50 and 1000, and the derivative after {slope_steps[0]} and {slope_steps[1]}") in alt
    stops = [str(row["while_loop_steps"]) for row in by_a.values()]
    assert f"Shaded vertical bars at {stops[0]}, {stops[1]} and {stops[2]}" in alt


@pytest.mark.parametrize("lesson_id", ["transforms-01", "transforms-03"])
def test_measured_figures_say_so(lesson_id: str) -> None:
    data = json.loads(_lesson(lesson_id).figure.data_path.read_text(encoding="utf-8"))
    assert data.get("measured") is True
