"""Through the real queue: every exercise's reference solution scores full marks and its
starter less, graded by a real `pathways worker` process, on SQLite and on Redis."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest
from grader_helpers import collect, start_worker, worker_env

from course import load_course, submission_for
from grader_worker.config import load_config
from grading_contract.queues import Queues
from grading_contract.result import result_from_dict


def _grade_course(tmp_path: Path, redis_url: str | None) -> None:
    prefix = f"test-{uuid.uuid4().hex[:8]}-"
    env = worker_env(tmp_path / "var", prefix, redis_url)
    queues = Queues(load_config(env))
    course = load_course(load_config(env).course_root)
    expected: dict[str, str] = {}
    for lesson, exercise in course.exercises():
        for kind, code in (("solution", exercise.solution_code),
                           ("starter", exercise.starter_code)):
            sid = f"{exercise.id}:{kind}"
            expected[sid] = kind
            queues.enqueue_job({"submission_id": sid, "attempt": 1, "exercise_id": exercise.id,
                                "source": submission_for(lesson, exercise, code),
                                "limits": {}, "enqueued_at": time.time()})
    assert expected, "the course has no exercises"
    proc = start_worker(env, tmp_path / "worker.log", concurrency=2)
    try:
        got = collect(queues, set(expected), timeout=60 + 8 * len(expected))
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    log = (tmp_path / "worker.log").read_text()
    assert set(got) == set(expected), f"missing results; worker log:\n{log[-3000:]}"
    for sid, kind in expected.items():
        result = result_from_dict(got[sid])
        if kind == "solution":
            assert result.outcome == "graded", (sid, result.feedback, result.stderr)
            assert result.score == result.max_score > 0, (sid, result.checks)
        else:
            assert result.outcome != "infrastructure_error", (sid, result.feedback)
            assert result.score < result.max_score, (sid, result.checks)
        assert result.environment.device_count >= 1
    assert '"worker stopped"' in log or "worker stopped" in log


@pytest.mark.slow
def test_course_through_sqlite_queue(tmp_path: Path) -> None:
    _grade_course(tmp_path, None)


@pytest.mark.slow
@pytest.mark.redis
def test_course_through_redis_queue(tmp_path: Path, redis_url: str) -> None:
    _grade_course(tmp_path, redis_url.rsplit("/", 1)[0] + "/11")
