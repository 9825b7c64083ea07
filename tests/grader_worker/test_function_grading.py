"""grade() on a function exercise in the real sandbox: two runs on inputs drawn now, the result
says what graded it, and a job whose variant or checks the worker does not have is refused."""

from __future__ import annotations

import time

from course import submission_for
from grader_worker.grading import grade
from grader_worker.runner import SandboxRunner
from grader_worker.worker import course_checks_resolver
from grading_contract.job import Job
from tests.packaged import packaged_course

EXERCISE = "arrays-04.exercise.matrix-column"


def _job(source: str, variant: dict, checks_hash: str = "") -> Job:
    return Job("sub-1", 1, EXERCISE, source, time.time(), {}, variant, "", checks_hash)


def test_reference_in_its_variant_scores_full_and_the_result_says_what_graded_it(
        runner: SandboxRunner) -> None:
    course = packaged_course()
    lesson, exercise = course.exercise(EXERCISE)
    variant = exercise.variants[2]
    source = submission_for(lesson, exercise, exercise.for_variant(variant).solution_code)
    resolve = course_checks_resolver(None)
    first = grade(_job(source, variant, exercise.checks_hash), runner=runner,
                  checks_for=resolve)
    assert first.outcome == "graded", (first.feedback, first.stderr)
    assert first.score == first.max_score == exercise.max_points
    assert (first.variant, first.checks_hash, first.course_version) == (
        variant, exercise.checks_hash, course.version)
    other = grade(_job(source, exercise.variants[0]), runner=runner, checks_for=resolve)
    assert other.outcome == "graded" and other.score < other.max_score
    assert first.seed is not None and other.seed is not None and first.seed != other.seed


def test_a_variant_the_exercise_does_not_declare_is_refused(runner: SandboxRunner) -> None:
    result = grade(_job("x = 1\n", {"value": 123.0}), runner=runner,
                   checks_for=course_checks_resolver(None))
    assert result.outcome == "infrastructure_error"
    assert "variant {'value': 123.0} is not one of" in result.feedback


def test_a_worker_with_other_checks_refuses_the_job(runner: SandboxRunner) -> None:
    result = grade(_job("x = 1\n", {}, checks_hash="f" * 64), runner=runner,
                   checks_for=course_checks_resolver(None))
    assert result.outcome == "infrastructure_error"
    assert "are not the service's" in result.feedback and "update the worker" in result.feedback
