"""Every number a Phase 03 figure's alt text states is computed here from its recorded data.json,
so re-recording a figure without updating its alt text fails."""

from __future__ import annotations

import json

from tests.packaged import packaged_course


def _alt_and_data(lesson_id: str) -> tuple[str, dict]:
    lesson = next(x for x in packaged_course().lessons() if x.id == lesson_id)
    data = json.loads(lesson.figure.data_path.read_text(encoding="utf-8"))["data"]
    return " ".join(lesson.figure.alt.split()), data


def test_keys_figure_states_the_largest_off_diagonal_correlation() -> None:
    alt, data = _alt_and_data("randomness-01")
    assert f"within {data['split_max_abs_off_diagonal']:g} of 0" in alt
    assert all(value == 1.0 for row in data["reused"] for value in row)
    assert f"{data['draws']} noise vectors of {data['length']}" in alt.replace("eight", "8")


def test_pytree_figure_states_leaf_sizes_and_adams_state() -> None:
    alt, data = _alt_and_data("randomness-02")
    assert f"{data['total']} parameters in {len(data['params'])} leaves" in alt
    assert f"{data['adam_leaves']} leaves holding {data['adam_total']} numbers" in alt
    assert data["adam_total"] == 2 * data["total"] + 1  # two moments per parameter and a count
    for row in data["params"]:
        assert f"{row['size']}" in alt


def test_training_step_figure_states_where_each_optimizer_ends() -> None:
    alt, data = _alt_and_data("randomness-03")
    assert data["hand_sgd"] == data["optax_sgd"], "optax.sgd is the hand-written update"
    assert f"from {data['hand_sgd'][0]:.2f}" in alt
    assert f"about {data['hand_sgd'][-1]:.2g}" in alt
    assert f"about {data['optax_adam'][-1]:.0e}".replace("e-05", "e-5") in alt


def test_training_loop_figure_states_the_resumed_and_the_reset_runs() -> None:
    alt, data = _alt_and_data("randomness-04")
    assert data["resumed"] == data["straight"] and data["resumed_equals_straight"]
    assert data["forgot_optimizer"][: data["stop_after"]] == data["straight"][: data["stop_after"]]
    assert f"from {data['straight'][0]:.3f}" in alt
    best = min(data["straight"])
    assert f"{best:.3f} after epoch {data['straight'].index(best) + 1}" in alt
    stop = data["stop_after"]
    assert f"{data['forgot_optimizer'][stop]:.5f} against {data['straight'][stop]:.5f}" in alt
