"""A "run" job (the learner's Run button) in the real sandbox: the program runs on its own
visible examples, no hidden input is drawn, no check of the suite is judged, nothing is scored."""

from __future__ import annotations

import time

from course import submission_for
from grader_worker.grading import RUN_CHECK, grade
from grader_worker.runner import SandboxRunner
from grader_worker.worker import course_checks_resolver
from grading_contract.job import Job, parse_job
from grading_contract.result import ResultSchema
from tests.packaged import packaged_course

EXERCISE = "arrays-04.exercise.mask-tail"


def _run(source: str, variant: dict) -> Job:
    return Job("run-1", 1, EXERCISE, source, time.time(), {}, variant, "", "", kind="run")


def test_a_run_shows_output_and_only_its_own_check_and_scores_nothing(
        runner: SandboxRunner) -> None:
    course = packaged_course()
    lesson, exercise = course.exercise(EXERCISE)
    variant = exercise.variants[0]
    mine = exercise.for_variant(variant)
    source = submission_for(lesson, mine, mine.solution_code)
    result = grade(_run(source, variant), runner=runner, checks_for=course_checks_resolver(None))
    assert result.kind == "run" and result.outcome == "graded", (result.feedback, result.stderr)
    assert (result.score, result.max_score, result.seed) == (0.0, 0.0, None)
    assert [(c.name, c.status, c.visibility) for c in result.checks] == [
        (RUN_CHECK, "passed", "visible"),
        ("mask_tail matches the reference on the lesson's example", "passed", "visible")]
    assert "masked:" in result.stdout
    ResultSchema().load(result.to_dict())  # the service accepts it as a result


def test_a_run_checks_the_function_on_the_lessons_example_only(runner: SandboxRunner) -> None:
    course = packaged_course()
    lesson, exercise = course.exercise(EXERCISE)
    source = submission_for(lesson, exercise, "def mask_tail(x):\n    return x\n")
    result = grade(_run(source, exercise.variants[0]), runner=runner,
                   checks_for=course_checks_resolver(None))
    assert result.outcome == "graded" and result.score == 0.0
    ran, example = result.checks
    assert ran.status == "passed" and example.status == "failed"
    assert "the lesson's x" in example.feedback, example.feedback
    for hidden in ("exactly", "negative values", "random draw"):
        assert hidden not in example.feedback, "only the lesson's own input is called"


def test_a_run_that_crashes_says_so_with_the_error(runner: SandboxRunner) -> None:
    course = packaged_course()
    lesson, exercise = course.exercise(EXERCISE)
    source = submission_for(lesson, exercise, "raise ValueError('boom')\n")
    result = grade(_run(source, {}), runner=runner, checks_for=course_checks_resolver(None))
    assert result.outcome == "exception" and "boom" in result.feedback
    assert [c.status for c in result.checks] == ["failed"] and result.score == 0.0


def test_the_job_kind_is_validated() -> None:
    body = {"submission_id": "s", "attempt": 1, "exercise_id": "e", "source": "",
            "enqueued_at": 0.0}
    assert parse_job(body).kind == "grade"
    assert parse_job({**body, "kind": "run"}).kind == "run"
    try:
        parse_job({**body, "kind": "score-everything"})
    except Exception as exc:  # noqa: BLE001
        assert "kind" in str(exc)
    else:
        raise AssertionError("an unknown job kind was accepted")
