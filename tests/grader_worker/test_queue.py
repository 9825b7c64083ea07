"""Through the real queue, graded by a real `pathways worker` process in its sandbox.

On SQLite, with warm runs (the production fast path), every exercise's reference solution
scores full marks: each one is gradable in the deployed sandbox. On Redis the runs are cold.
Whether cheats score less is the content's property, proved for every exercise and variant by
`pathways course check` (tests/course/test_content_runs.py); here a sample of exercises (a
function exercise with variants, and each project) also sends the starter, a hard-coded answer
and another variant's answer through the queue, on both, so the verdicts are shown to survive
the transport and both kinds of run.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest
from grader_helpers import collect, start_worker, worker_env

from course import load_course, submission_for
from course.tools.checking import hardcoded_submission
from grader_worker.config import load_config
from grading_contract.queues import Queues
from grading_contract.result import result_from_dict


def _sample(course) -> set[str]:  # noqa: ANN001
    """The exercises whose cheats also go through the queue: the first function exercise with
    variants and every project (graded by stages, not by a function)."""
    function = next(e.id for _, e in course.gradables() if e.function and len(e.variants) > 1)
    projects = {p.project.exercise.id for p in course.phases
                if p.project and p.project.exercise}
    assert projects, "the course has no gradable project"
    return {function} | projects


def _submissions(course, tmp_path: Path, *, every_reference: bool):  # noqa: ANN001, ANN202
    """(kind, exercise, variant, whole main.py); kind "full" must score full marks, every other
    kind less. References of every exercise (``every_reference``) or of the sample only."""
    sample = _sample(course)
    for lesson, exercise in course.gradables():
        if exercise.id not in sample:
            if every_reference:
                variant = (exercise.variants or [{}])[0]
                yield "full", exercise, variant, submission_for(
                    lesson, exercise, exercise.for_variant(variant).solution_code)
            continue
        variants = exercise.variants or [{}]
        mine = variants[-1]
        yield "full", exercise, variants[0], submission_for(
            lesson, exercise, exercise.for_variant(variants[0]).solution_code)
        yield "starter", exercise, mine, submission_for(
            lesson, exercise, exercise.for_variant(mine).starter_code)
        if exercise.function:
            yield "hardcoded", exercise, variants[0], hardcoded_submission(
                lesson, exercise, variants[0], tmp_path / exercise.id)
        if len(variants) > 1:
            yield "full", exercise, mine, submission_for(
                lesson, exercise, exercise.for_variant(mine).solution_code)
            yield "other-variant", exercise, mine, submission_for(
                lesson, exercise, exercise.for_variant(variants[0]).solution_code)


def _grade_course(tmp_path: Path, redis_url: str | None, *, every_reference: bool) -> None:
    prefix = f"test-{uuid.uuid4().hex[:8]}-"
    env = worker_env(tmp_path / "var", prefix, redis_url, warm=every_reference)
    queues = Queues(load_config(env))
    course = load_course(load_config(env).course_root)
    expected: dict[str, tuple[str, dict]] = {}
    for kind, exercise, variant, source in _submissions(
            course, tmp_path / "cheats", every_reference=every_reference):
        sid = f"{exercise.id}:{kind}:{len(expected)}"
        expected[sid] = (kind, variant)
        queues.enqueue_job({"submission_id": sid, "attempt": 1, "exercise_id": exercise.id,
                            "source": source, "limits": {}, "enqueued_at": time.time(),
                            "variant": variant})
    kinds = {kind for kind, _ in expected.values()}
    assert {"full", "starter", "hardcoded", "other-variant"} <= kinds, kinds
    graded_ids = {sid.split(":", 1)[0] for sid in expected}
    everything = {exercise.id for _, exercise in course.gradables()}
    assert graded_ids == (everything if every_reference else _sample(course)), graded_ids
    proc = start_worker(env, tmp_path / "worker.log", concurrency=2)
    try:
        got = collect(queues, set(expected), timeout=60 + 12 * len(expected))
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    log = (tmp_path / "worker.log").read_text()
    assert set(got) == set(expected), f"missing results; worker log:\n{log[-3000:]}"
    for sid, (kind, variant) in expected.items():
        result = result_from_dict(got[sid])
        exercise = course.exercise(result.exercise_id)[1]
        assert result.variant == variant and result.checks_hash == exercise.checks_hash
        assert result.course_version == course.version
        if kind == "full":
            assert result.outcome == "graded", (sid, result.feedback, result.stderr)
            assert result.score == result.max_score > 0, (sid, result.checks)
        else:
            assert result.outcome != "infrastructure_error", (sid, result.feedback)
            assert result.score < result.max_score, (sid, result.checks)
        if exercise.function:
            assert result.seed is not None
        assert result.environment.device_count >= 1
    assert '"worker stopped"' in log or "worker stopped" in log


@pytest.mark.slow
def test_course_through_sqlite_queue(tmp_path: Path) -> None:
    _grade_course(tmp_path, None, every_reference=True)


@pytest.mark.slow
@pytest.mark.redis
def test_course_through_redis_queue(tmp_path: Path, redis_url: str) -> None:
    _grade_course(tmp_path, redis_url.rsplit("/", 1)[0] + "/11", every_reference=False)
