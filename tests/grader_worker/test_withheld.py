"""grader_worker.reference.withhold_drawn: what a seed-pool worker replaces in a result's
feedback (which checks disclose is course.checks.disclosure's, tests/course/test_disclosure.py)."""

from __future__ import annotations

import numpy as np

from course.checks import Call
from course.checks.grading import Prepared
from grader_worker.reference import withhold_drawn
from grading_contract.result import CheckResult, GradingResult

HIDDEN_TEXT = "A hidden check failed."


def _result() -> GradingResult:
    result = GradingResult("s1", 1, "x.exercise.y", "graded")
    result.checks = [
        CheckResult("returns the reference's results on random draw 0", "failed", 0, 1,
                    "on random draw 0: returned [1.0], expected [2.5]"),
        CheckResult("the outputs add up right", "failed", 0, 1, "they add up to 1, not 2.5"),
        CheckResult("returns three numbers", "failed", 0, 1, "on random draw 0 it returned 2"),
        CheckResult("a hidden rule", "failed", 0, 1, HIDDEN_TEXT, "hidden"),
        CheckResult("runs", "passed", 1, 1, ""),
    ]
    return result


def test_disclosing_visible_checks_are_replaced_and_the_others_kept() -> None:
    prepared = Prepared({}, (Call("the lesson's x", (np.ones(2),)),
                             Call("random draw 0", (np.ones(2),), "random")))
    result = _result()
    withhold_drawn(result, prepared, {"returns the reference's results on random draw 0",
                                      "the outputs add up right", "a hidden rule", "runs"})
    feedback = {c.name: c.feedback for c in result.checks}
    first = feedback["returns the reference's results on random draw 0"]
    assert "2.5" not in first and "on random draw 0, an input drawn at grading time" in first
    assert "2.5" not in feedback["the outputs add up right"]
    assert "on inputs drawn at grading time" in feedback["the outputs add up right"]
    assert feedback["returns three numbers"] == "on random draw 0 it returned 2"  # not disclosing
    assert feedback["a hidden rule"] == HIDDEN_TEXT  # fixed already; its name stays unshown
    assert feedback["runs"] == ""
