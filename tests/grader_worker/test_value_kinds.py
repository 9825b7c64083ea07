"""Issue 21, findings 4 and 5, graded for real (reference run and learner run in the sandbox):
values are compared by the reference's kind (complex as complex: the imaginary part counts),
and an argument the harness cannot read after the call counts as changed."""

from __future__ import annotations

import numpy as np
import pytest
from grader_helpers import HERE, make_job

from course.checks.builtin import _differ, _same_argument
from course.checks.functions import FunctionExercise
from course.checks.values import CapturedValue
from grader_worker.grading import GradingTarget, grade
from grader_worker.runner import SandboxRunner

CHECKS = HERE / "fixtures" / "complex_checks.py"
PRELUDE = "import jax\nimport jax.numpy as jnp\n\n\n"
REFERENCE = PRELUDE + "def rotate(z):\n    return z * 1j\n"
TARGET = GradingTarget(CHECKS, reference=lambda _variant: REFERENCE)


def _grade(runner: SandboxRunner, body: str):  # noqa: ANN202
    return grade(make_job(PRELUDE + body, exercise_id="test.exercise.rotate"), runner=runner,
                 checks_for=lambda _: TARGET)


def _failed(result) -> set[str]:  # noqa: ANN001
    return {c.name for c in result.checks if c.status != "passed"}


def test_the_reference_scores_full(runner: SandboxRunner) -> None:
    result = _grade(runner, "def rotate(z):\n    return z * 1j\n")
    assert (result.outcome, result.score) == ("graded", result.max_score), result.feedback


def test_a_wrong_imaginary_part_fails_every_value_check(runner: SandboxRunner) -> None:
    """z * -1j has the reference's real part: the old float64 cast dropped the imaginary part
    and gave it 9/10."""
    result = _grade(runner, "def rotate(z):\n    return z * -1j\n")
    assert result.outcome == "graded" and result.score < result.max_score / 2, \
        (result.score, [(c.name, c.status) for c in result.checks])
    assert any("jit" in name for name in _failed(result)), _failed(result)


def test_a_real_answer_to_a_complex_reference_fails(runner: SandboxRunner) -> None:
    result = _grade(runner, "def rotate(z):\n    return (z * 1j).real\n")
    assert result.outcome == "graded" and result.score < result.max_score / 2, result.checks


def test_an_argument_deleted_during_the_call_counts_as_changed(runner: SandboxRunner) -> None:
    """The function returns the right values but deletes its argument: the harness cannot
    read it after the call, which used to skip the check."""
    result = _grade(runner, "def rotate(z):\n    out = z * 1j\n    z.delete()\n"
                            "    return out\n")
    unchanged = [c for c in result.checks if "unchanged" in c.name or "argument" in c.name]
    assert unchanged and all(c.status == "failed" for c in unchanged), \
        [(c.name, c.status, c.feedback) for c in result.checks]


SPEC = FunctionExercise("f")


def _array(value: object) -> CapturedValue:
    return CapturedValue("array", np.asarray(value))


@pytest.mark.parametrize(("got", "want", "same"), [
    ([1 + 2j], [1 - 2j], False),   # imaginary part differs
    ([1 + 0j], [1.0], False),      # complex where the reference is real: its kind is refused
    ([1.0], [1 + 0j], True),       # real where the reference is complex: cast without loss
    ([1, 2], [1.0, 2.0], True),    # int vs float: numbers (the dtype has its own check)
    ([np.nan + 1j], [np.nan + 1j], True),
])
def test_values_compare_by_the_references_kind(got: list, want: list, same: bool) -> None:
    assert (_differ(_array(got), _array(want), SPEC) is None) is same


def test_an_unreadable_or_retyped_argument_is_not_the_same() -> None:
    before = _array([1.0, 2.0])
    assert _same_argument(before, _array([1.0, 2.0]))
    assert not _same_argument(before, CapturedValue("unsupported", reason="deleted"))
    assert not _same_argument(before, _array(np.array([1.0, 2.0], np.float32)))
    assert not _same_argument(before, _array([1.0, 2.0, 3.0]))
    assert not _same_argument(_array([1j]), _array([-1j]))
    assert _same_argument(CapturedValue("scalar", float("nan")),
                          CapturedValue("scalar", float("nan")))
