"""Leases: a worker SIGKILLed mid-job loses no job (the reaper sends it again and the result
is recorded once); SIGTERM lets a worker finish its job; duplicates and infrastructure errors
are handled without charging the learner. Real `pathways worker` processes, real queues."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from grader_worker.config import load_config
from grading_contract.queues import Queues
from lti_service.consumer import Consumer
from lti_service.core.db import make_engine, make_session_factory, upgrade
from lti_service.core.models import LmsContext, LmsUser, Placement, Platform, utcnow
from lti_service.outbox.models import ScoreOutbox
from lti_service.submissions import service
from lti_service.submissions.models import GradingRun, Submission
from lti_service.submissions.settings import GradingSettings

pytestmark = pytest.mark.waits  # mostly waiting: run early (tests/conftest.py:file_order)
SETTINGS = GradingSettings(queued_lease_s=120, running_lease_s=3, max_tries=3)


@dataclass
class World:
    sessions: sessionmaker[Session]
    placement_id: int
    user_id: int
    env: dict[str, str]
    queues: Queues
    tmp: Path

    def submit(self, exercise_id: str, source: str) -> str:
        """Submit on the placement of ``exercise_id`` (only a placement's own exercise is
        scored: the one placement here is made that exercise's)."""
        with self.sessions() as session:
            placement = session.get(Placement, self.placement_id)
            placement.content_id = exercise_id
            row = service.submit(session, self.queues, SETTINGS, placement=placement,
                                 user=session.get(LmsUser, self.user_id),
                                 exercise_id=exercise_id, source=source)
            return row.id

    def row(self, submission_id: str) -> Submission:
        with self.sessions() as session:
            return session.get(Submission, submission_id)

    def worker(self, name: str) -> subprocess.Popen[bytes]:
        exe = Path(sys.executable).with_name("pathways")
        with (self.tmp / f"{name}.log").open("ab") as out:  # the child keeps its own copy
            return subprocess.Popen([str(exe), "worker", "--concurrency", "1"], env=self.env,
                                    stdout=out, stderr=subprocess.STDOUT)


def _rows(session: Session) -> tuple[int, int]:
    platform = Platform(issuer="https://lms.test", client_id="c1", name="t",
                        auth_login_url="https://lms.test/a", auth_token_url="https://lms.test/t",
                        key_set_url="https://lms.test/k")
    session.add(platform)
    session.flush()
    context = LmsContext(platform_id=platform.id, context_id="course-1", title="JAX")
    user = LmsUser(platform_id=platform.id, sub="alice", name="Alice")
    session.add_all([context, user])
    session.flush()
    placement = Placement(context_id=context.id, resource_link_id="rl-1",
                          content_id="x", lineitem_url="https://lms.test/li/1",
                          max_attempts=5, counting="best")
    session.add(placement)
    session.commit()
    return placement.id, user.id


def _world(tmp_path: Path, redis_url: str | None) -> World:
    url = f"sqlite:///{tmp_path / 'tool.sqlite3'}"
    upgrade(url)
    sessions = make_session_factory(make_engine(url))
    with sessions() as session:
        placement_id, user_id = _rows(session)
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "COURSE_ROOT")}
    env.update(JAX_PLATFORMS="cpu", PATHWAYS_VAR_DIR=str(tmp_path / "var"),
               PATHWAYS_QUEUE_PREFIX=f"lease-{uuid.uuid4().hex[:8]}-",
               PATHWAYS_GRADER_HEARTBEAT_S="1")
    if redis_url:
        env["REDIS_URL"] = redis_url
    return World(sessions, placement_id, user_id, env, Queues(load_config(env)), tmp_path)


@pytest.fixture(params=["sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[World]:
    redis = None
    if request.param == "redis":
        redis = request.getfixturevalue("redis_url").rsplit("/", 1)[0] + "/12"
    yield _world(tmp_path, redis)


def _exercise():  # noqa: ANN202
    from course import load_course, submission_for

    lesson, exercise = load_course(load_config().course_root).exercises()[0]
    return exercise.id, submission_for(lesson, exercise, exercise.solution_code)


def _until(consumer: Consumer, done, timeout: float) -> None:  # noqa: ANN001
    deadline = time.time() + timeout
    while time.time() < deadline:
        consumer.drain()
        consumer.reap()
        if done():
            return
        time.sleep(0.2)
    raise AssertionError("timed out waiting")


def _kill(proc: subprocess.Popen[bytes], sig: int = signal.SIGKILL) -> int:
    if proc.poll() is None:
        proc.send_signal(sig)
    return proc.wait(timeout=60)


@pytest.mark.slow
def test_sigkilled_worker_loses_no_job(world: World) -> None:
    exercise_id, solution = _exercise()
    slow = "import time\ntime.sleep(3)\n" + solution  # still running 1 s after it started
    sid = world.submit(exercise_id, slow)
    consumer = Consumer(world.sessions, world.queues, SETTINGS)
    first = world.worker("first")
    try:
        _until(consumer, lambda: world.row(sid).status == "running", 90)
        time.sleep(1.0)
        assert _kill(first) == -signal.SIGKILL
        # huey has no late ack: the task that was running is gone from the queue.
        assert world.queues.grading.pending_count() == 0
        assert world.row(sid).status == "running"
        second = world.worker("second")
        try:
            _until(consumer, lambda: world.row(sid).status == "graded", 120)
        finally:
            _kill(second, signal.SIGTERM)
    finally:
        _kill(first)
    row = world.row(sid)
    assert row.grading_try == 2 and row.score == row.max_score > 0, row.feedback
    with world.sessions() as session:
        runs = list(session.scalars(select(GradingRun).where(GradingRun.submission_id == sid)))
        assert [(r.attempt, r.outcome) for r in runs] == [(2, "graded")]
        assert session.scalar(select(func.count()).select_from(ScoreOutbox)) == 1
    assert consumer.counts.get("graded") == 1


@pytest.mark.slow
def test_sigterm_finishes_the_running_job(world: World) -> None:
    exercise_id, solution = _exercise()
    sid = world.submit(exercise_id, "import time\ntime.sleep(4)\n" + solution)
    consumer = Consumer(world.sessions, world.queues, SETTINGS)
    proc = world.worker("graceful")
    try:
        _until(consumer, lambda: world.row(sid).status == "running", 90)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
        _until(consumer, lambda: world.row(sid).status == "graded", 10)
    finally:
        _kill(proc)
    assert world.row(sid).grading_try == 1
    log = (world.tmp / "graceful.log").read_text()
    assert '"msg": "job graded"' in log and '"msg": "worker stopped"' in log


def _result(sid: str, attempt: int, outcome: str, score: float, exercise_id: str = "x") -> dict:
    return {"schema": 1, "submission_id": sid, "attempt": attempt, "exercise_id": exercise_id,
            "outcome": outcome, "score": score, "max_score": 3.0, "feedback": "f",
            "checks": [], "stdout": "", "stderr": "", "truncated": {},
            "timings": {"queued_s": 0.0, "run_s": 0.0, "total_s": 0.0},
            "environment": {"python": "3", "jax": "0", "backend": "cpu", "device_count": 1,
                            "host": "h", "worker": "w"}}


def test_results_are_idempotent_and_counted_by_policy(tmp_path: Path) -> None:
    w = _world(tmp_path, None)
    a = w.submit("x", "print(1)\n")
    b = w.submit("x", "print(2)\n")
    with w.sessions() as s:
        assert service.record_result(s, w.queues, SETTINGS, _result(a, 1, "graded", 2.0)) \
            == "graded"
        assert service.record_result(s, w.queues, SETTINGS, _result(a, 1, "graded", 2.0)) \
            == "duplicate"
        assert service.record_result(s, w.queues, SETTINGS, _result(a, 2, "graded", 3.0)) \
            == "late"
        assert service.record_result(s, w.queues, SETTINGS, _result(b, 1, "exception", 0.0)) \
            == "graded"
        assert service.record_result(s, w.queues, SETTINGS, {"schema": 1}) == "invalid"
        assert service.record_result(s, w.queues, SETTINGS,
                                     _result(b, 1, "graded", 3.0, "other")) == "invalid"
        outbox = [(o.score, o.max_score) for o in s.scalars(select(ScoreOutbox))]
        assert outbox == [(2.0, 3.0), (2.0, 3.0)], "best: attempt 1 still counts"
        placement = s.get(Placement, w.placement_id)
        placement.counting = "last"
        assert service.counted(s, placement, w.user_id).id == b
        placement.counting = "first"
        assert service.counted(s, placement, w.user_id).id == a


def test_infrastructure_errors_retry_then_not_gradable_and_uncharged(tmp_path: Path) -> None:
    w = _world(tmp_path, None)
    sid = w.submit("x", "print(1)\n")
    with w.sessions() as s:
        for attempt in (1, 2):
            assert service.record_result(
                s, w.queues, SETTINGS, _result(sid, attempt, "infrastructure_error", 0)) \
                == "retried"
        assert w.queues.grading.pending_count() == 3  # the first send and two retries
        assert service.record_result(
            s, w.queues, SETTINGS, _result(sid, 3, "infrastructure_error", 0)) == "not_gradable"
        row = s.get(Submission, sid)
        assert (row.status, row.infra_failures, row.score) == ("not_gradable", 3, None)
        assert "does not count as an attempt" in row.feedback
        assert service.attempts_used(s, w.placement_id, w.user_id) == 0
        assert s.scalar(select(func.count()).select_from(ScoreOutbox)) == 0


def test_a_host_timeout_is_retried_and_a_budget_overrun_ends_the_job_uncharged(
        tmp_path: Path) -> None:
    """Issue 21/22: ``host_timeout`` (the wall clock ran out before the program's own CPU time
    reached its limit) is the host's doing: retried like an infrastructure error. The worker's
    ``not_gradable`` (its trusted parse ran past its budget) ends the job at once: lease
    released, no score, no attempt charged."""
    w = _world(tmp_path, None)
    sid = w.submit("x", "print(1)\n")
    with w.sessions() as s:
        assert service.record_result(
            s, w.queues, SETTINGS, _result(sid, 1, "host_timeout", 0)) == "retried"
        assert s.get(Submission, sid).status == "queued"
        assert service.record_result(
            s, w.queues, SETTINGS, _result(sid, 2, "not_gradable", 0)) == "not_gradable"
        row = s.get(Submission, sid)
        assert (row.status, row.score, row.lease_expires_at) == ("not_gradable", None, None)
        assert service.attempts_used(s, w.placement_id, w.user_id) == 0
        assert s.scalar(select(func.count()).select_from(ScoreOutbox)) == 0


def test_reaper_resends_an_expired_queued_lease(tmp_path: Path) -> None:
    w = _world(tmp_path, None)
    sid = w.submit("x", "print(1)\n")
    w.queues.grading.flush()  # the queue lost the message
    with w.sessions() as s:
        assert service.reap(s, w.queues, SETTINGS) == 0
        later = utcnow() + timedelta(seconds=SETTINGS.queued_lease_s + 1)
        assert service.reap(s, w.queues, SETTINGS, now=later) == 1
    assert w.queues.grading.pending_count() == 1
    assert w.row(sid).grading_try == 2 and w.row(sid).status == "queued"


def test_pathways_consumer_command_records_results_and_stops_on_sigterm(tmp_path: Path) -> None:
    w = _world(tmp_path, None)
    sid = w.submit("x", "print(1)\n")
    w.queues.send("started", submission_id=sid, attempt=1, worker="w")
    w.queues.send("result", result=_result(sid, 1, "graded", 2.0))
    env = {**w.env, "DATABASE_URL": f"sqlite:///{tmp_path / 'tool.sqlite3'}"}
    exe = Path(sys.executable).with_name("pathways")
    with (tmp_path / "consumer.log").open("ab") as out:
        proc = subprocess.Popen([str(exe), "consumer", "--reap-every", "0.5",
                                 "--outbox-every", "0.5"], env=env, stdout=out,
                                stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 60
        while w.row(sid).status != "graded" and time.time() < deadline:
            time.sleep(0.2)
        assert w.row(sid).score == 2.0
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0, (tmp_path / "consumer.log").read_text()[-2000:]
    with w.sessions() as session:
        outbox = session.scalars(select(ScoreOutbox)).one()
        # The placement has an unreachable line item: the row stays for a later retry.
        assert outbox.score == 2.0 and outbox.status in ("pending", "no_lineitem")


def test_reaper_resends_a_job_lost_from_the_queue_within_seconds(world: World) -> None:
    """The queue lost the job (flushed, a failover): the reaper sees it missing and sends the
    same try again after ``lost_after_s``, not after the 900 s queued lease; a job that is
    still waiting is left alone. SQLite and Redis."""
    settings = GradingSettings(queued_lease_s=900, lost_after_s=1.0)
    kept = world.submit("x", "print(1)\n")
    lost = world.submit("x", "print(2)\n")
    world.queues.grading.flush()
    with world.sessions() as s:
        world.queues.enqueue_job({"submission_id": kept, "attempt": 1})  # kept is still there
        assert service.reap(s, world.queues, settings) == 0, "sent under a second ago"
    consumer = Consumer(world.sessions, world.queues, settings)
    started = time.monotonic()
    _until(consumer, lambda: world.queues.queued_jobs() >= {(kept, 1), (lost, 1)}, 15)
    assert time.monotonic() - started < 15
    assert world.queues.grading.pending_count() == 2, "only the lost job was sent again"
    row = world.row(lost)
    assert (row.status, row.grading_try) == ("queued", 1), "a lost message costs no try"
    with world.sessions() as s:  # once back in the queue, it is not sent a third time
        assert service.reap(s, world.queues, settings,
                            now=utcnow() + timedelta(seconds=5)) == 0
