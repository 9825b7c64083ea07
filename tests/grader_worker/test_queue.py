"""Through the real queue, graded by a real `pathways worker` process on SQLite and on Redis,
for every exercise: the reference solution scores full marks (in two variants where it has
them), and the starter, a hard-coded answer (the reference's outputs typed in) and another
learner's variant answer score less."""

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


def _submissions(course, tmp_path: Path):  # noqa: ANN001, ANN202
    """(kind, exercise, variant, whole main.py) for every exercise; kind "full" must score
    full marks, every other kind less."""
    for lesson, exercise in course.gradables():
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


def _grade_course(tmp_path: Path, redis_url: str | None) -> None:
    prefix = f"test-{uuid.uuid4().hex[:8]}-"
    env = worker_env(tmp_path / "var", prefix, redis_url)
    queues = Queues(load_config(env))
    course = load_course(load_config(env).course_root)
    expected: dict[str, tuple[str, dict]] = {}
    for kind, exercise, variant, source in _submissions(course, tmp_path / "cheats"):
        sid = f"{exercise.id}:{kind}:{len(expected)}"
        expected[sid] = (kind, variant)
        queues.enqueue_job({"submission_id": sid, "attempt": 1, "exercise_id": exercise.id,
                            "source": source, "limits": {}, "enqueued_at": time.time(),
                            "variant": variant})
    kinds = {kind for kind, _ in expected.values()}
    assert {"full", "starter", "hardcoded", "other-variant"} <= kinds, kinds
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
    _grade_course(tmp_path, None)


@pytest.mark.slow
@pytest.mark.redis
def test_course_through_redis_queue(tmp_path: Path, redis_url: str) -> None:
    _grade_course(tmp_path, redis_url.rsplit("/", 1)[0] + "/11")
