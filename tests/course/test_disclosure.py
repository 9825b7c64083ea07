"""course.checks.disclosure: which failed checks' feedback depends on the reference's outputs on
drawn inputs (what a grader with a seed pool withholds), told by judging again with those
outputs changed, not by reading the feedback's words."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from course.checks import load_suite
from course.checks.disclosure import changed, disclosed, with_outputs_changed
from course.checks.grading import Prepared, judge
from course.checks.values import (
    CallOutputs,
    CallResult,
    CapturedCalls,
    CapturedValue,
    CapturedValues,
)

CHECKS = '''
import numpy as np
from course.checks import Call, FunctionExercise, Values, check

EXERCISE = FunctionExercise("double", jit=False)


def calls(params, rng):
    return [Call("the lesson's 1, 2", (np.array([1.0, 2.0], np.float32),)),
            Call("random draw 0", (rng.normal(size=2).astype(np.float32),), "random")]


@check("the outputs add up right", points=1)
def adds_up(v: Values) -> None:
    """Leaks the reference's total over every input, naming none."""
    got = sum(float(np.sum(r.plain.outputs[0].value)) for r in v.captured.calls.results)
    want = sum(float(np.sum(r.plain.outputs[0].value)) for r in v.expected.calls.results)
    v.expect_true(abs(got - want) < 1e-4, f"the outputs add up to {got:.4f}, not {want:.4f}")


@check("returns three numbers", points=1)
def three(v: Values) -> None:
    """Names a drawn input, reads only the learner's own outputs."""
    for call, r in zip(v.inputs, v.captured.calls.results):
        size = np.asarray(r.plain.outputs[0].value).size
        if call.kind == "random":
            v.expect_true(size == 3, f"on {call.label} it returned {size} numbers, not 3")
'''


def _run(outputs: list[np.ndarray], args: list[np.ndarray]) -> CapturedValues:
    results = tuple(CallResult(CallOutputs((CapturedValue("array", out, dtype="float32",
                                                          jax_array=True),), False, None),
                               (CapturedValue("array", arg, dtype="float32"),), None)
                    for out, arg in zip(outputs, args, strict=True))
    return CapturedValues(True, None, {}, CapturedCalls("double", True, results))


@pytest.fixture
def graded(tmp_path: Path):  # noqa: ANN201
    path = tmp_path / "checks.py"
    path.write_text(CHECKS)
    suite = load_suite(path)
    inputs = tuple(suite.calls({}, 7))
    args = [np.asarray(c.args[0]) for c in inputs]
    expected = _run([2 * a for a in args], args)
    return suite, Prepared({}, inputs, None, expected), args


def _failed(suite, captured, prepared) -> dict[str, str]:  # noqa: ANN001
    return {o.name: o.feedback for o in judge(suite, captured, prepared, "")
            if o.status != "passed"}


def _disclosed(suite, captured, prepared) -> set[str]:  # noqa: ANN001
    return disclosed(suite, captured, prepared, "", judge(suite, captured, prepared, ""))


def test_a_check_that_prints_the_references_total_is_disclosing_though_it_names_no_input(
        graded) -> None:  # noqa: ANN001
    suite, prepared, args = graded
    wrong_on_drawn = _run([2 * args[0], 3 * args[1]], args)
    failed = _failed(suite, wrong_on_drawn, prepared)
    assert "random draw" not in failed["the outputs add up right"]  # a label rule misses it
    shown = _disclosed(suite, wrong_on_drawn, prepared)
    assert "the outputs add up right" in shown
    # The built-in comparison on the drawn input shows its expected output: disclosing too.
    assert any("random draw 0" in failed[name] for name in shown - {"the outputs add up right"})
    # Naming a drawn input while reading only the learner's outputs discloses nothing.
    assert "on random draw 0" in failed["returns three numbers"]
    assert "returns three numbers" not in shown


def test_a_failure_on_the_lessons_example_alone_is_not_withheld(graded) -> None:  # noqa: ANN001
    suite, prepared, args = graded
    wrong_on_example = _run([3 * args[0], 2 * args[1]], args)
    failed = _failed(suite, wrong_on_example, prepared)
    assert any("the lesson's 1, 2" in text for text in failed.values())
    shown = _disclosed(suite, wrong_on_example, prepared)
    assert shown == {"the outputs add up right"}  # the total still includes the drawn input
    assert _disclosed(suite, _run([2 * a for a in args], args), prepared) == set()


def test_only_the_drawn_inputs_outputs_are_changed(graded) -> None:  # noqa: ANN001
    _, prepared, args = graded
    again = with_outputs_changed(prepared).expected.calls.results
    before = prepared.expected.calls.results
    assert np.array_equal(again[0].plain.outputs[0].value, before[0].plain.outputs[0].value)
    assert not np.any(again[1].plain.outputs[0].value == before[1].plain.outputs[0].value)
    assert again[1].inputs_after == before[1].inputs_after


@pytest.mark.parametrize("value", [
    np.array([0.0, -0.5, 1e30, -1e30, np.nan, np.inf, 5e-40], np.float32),
    np.array([0, -1, 7, np.iinfo(np.int32).max, np.iinfo(np.int32).min], np.int32),
    np.array([True, False]), np.array([1 + 2j, 0j]), np.array(["a", ""]),
])
def test_changed_changes_every_element_and_keeps_shape_and_kind(value: np.ndarray) -> None:
    out = changed(value)
    assert out.shape == value.shape and out.dtype.kind == value.dtype.kind
    assert out.dtype == value.dtype or value.dtype.kind == "U"  # text may grow by a character
    same = out == value
    assert not np.any(same), (value, out)


@pytest.mark.parametrize("value", [0, -3, 2**40, 0.0, -0.5, float("nan"), True, "x", 1j])
def test_changed_changes_a_scalar_and_keeps_its_type(value: object) -> None:
    out = changed(value)
    assert type(out) is type(value) and out != value
