"""Every number a Phase 04 figure's alt text states is read here from its recorded data.json
(counts, bytes and gradients: exact data, so an alt text that drifts from them fails)."""

from __future__ import annotations

import json

from tests.packaged import packaged_course


def _alt_and_data(lesson_id: str) -> tuple[str, dict]:
    lesson = next(x for x in packaged_course().lessons() if x.id == lesson_id)
    data = json.loads(lesson.figure.data_path.read_text(encoding="utf-8"))
    assert "measured" not in data, "Phase 04's figures are exact, compared by course check"
    return " ".join(lesson.figure.alt.split()), data["data"]


def test_placement_figure() -> None:
    alt, data = _alt_and_data("parallel-01")
    rows = {row["placement"]: row["bytes"] for row in data["rows"]}
    assert rows["jnp.arange (uncommitted)"] == [128] + [0] * 7
    put = rows["device_put(x, devices[3])"]
    assert put[3] == 128 and sum(put) == 128
    assert set(rows["P('data') on 8"]) == {16} and "16 bytes on every device, 128 in all" in alt
    assert sum(rows["P() on 8 (replicated)"]) == 1024 and "1024 in all" in alt
    assert set(rows["P('data') on 4x2"]) == {32} and "32 on every device, 256 in all" in alt


def test_collectives_figure() -> None:
    alt, data = _alt_and_data("parallel-02")
    rows = {row["layout"]: [(c["collective"], c["shape"], c["bytes"]) for c in row["collectives"]]
            for row in data["rows"]}
    assert rows["rows split, y split"] == [] and rows["all whole (replicated)"] == []
    assert rows["rows split, y whole"] == [("all-gather", [16, 8], 512)]
    assert rows["contraction split, y whole"] == [("all-reduce", [16, 8], 512)]
    assert rows["contraction split, y by rows"] == [("all-reduce", [16, 8], 512)]
    assert "one all-gather of [16, 8], 512 bytes" in alt
    assert "Contraction split with y whole: one all-reduce of [16, 8], 512 bytes" in alt


def test_per_device_gradients_figure() -> None:
    alt, data = _alt_and_data("parallel-03")
    first = [row[0] for row in data["per_device"]]
    assert round(first[0], 2) == 2.49 and round(data["pmean"][0], 3) == 1.063
    assert "at about 1.063 mark their pmean" in alt
    assert max(abs(a - b) for a, b in zip(data["pmean"], data["whole_batch"], strict=True)) < 1e-5


def test_training_step_figure() -> None:
    alt, data = _alt_and_data("parallel-04")
    for row in data["rows"]:
        model = sum(r["bytes"] for r in row["all_reduces"]
                    if r["group"] == row["model"] and row["model"] > 1)
        grads = sum(r["bytes"] for r in row["all_reduces"]) - model
        text = (f"no gradient all-reduce, {model} bytes of activations" if grads == 0 else
                f"{grads} bytes of gradients and loss, no activations" if model == 0 else
                f"{grads} and {model}" if row["data"] == 2 else
                f"{grads} bytes of gradients and loss, {model} bytes of activations")
        assert text in alt, (row, text)
