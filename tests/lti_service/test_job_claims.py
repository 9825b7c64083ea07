"""Exactly one grading per job: a worker claims (submission, try) before it runs it, the reaper
never re-sends a claimed job, and a duplicate copy finds the claim taken."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import pytest

from grader_worker.cli import admitted
from grading_contract.config import QueueConfig
from grading_contract.queues import Queues
from lti_service.core.db import make_engine, make_session_factory, upgrade
from lti_service.core.models import LmsContext, LmsUser, Placement, Platform, utcnow
from lti_service.submissions import service
from lti_service.submissions.settings import GradingSettings

SETTINGS = GradingSettings(queued_lease_s=600, running_lease_s=60, max_tries=3,
                           lost_after_s=0.0)


@pytest.fixture(params=["sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def queues(request: pytest.FixtureRequest, tmp_path: Path) -> Queues:
    redis = request.getfixturevalue("redis_url") if request.param == "redis" else None
    return Queues(QueueConfig(var_dir=tmp_path / "var", redis_url=redis,
                              queue_prefix=f"claims-{os.getpid()}-{tmp_path.name}-",
                              grading_key=b"k" * 32))


def test_a_taken_job_is_never_sent_again_and_a_copy_is_refused(queues: Queues,
                                                               tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    upgrade(url)
    engine = make_engine(url)
    with make_session_factory(engine)() as session:
        platform = Platform(issuer="https://lms.test", client_id="c", name="t",
                            auth_login_url="https://lms.test/a",
                            auth_token_url="https://lms.test/t", key_set_url="https://lms.test/k")
        session.add(platform)
        session.flush()
        context = LmsContext(platform_id=platform.id, context_id="c1", title="JAX")
        user = LmsUser(platform_id=platform.id, sub="alice", name="Alice")
        session.add_all([context, user])
        session.flush()
        placement = Placement(context_id=context.id, resource_link_id="rl", content_id="ex",
                              max_attempts=5, counting="best")
        session.add(placement)
        session.commit()
        taken = service.submit(session, queues, SETTINGS, placement=placement, user=user,
                               exercise_id="ex", source="print(1)\n").id
        lost = service.submit(session, queues, SETTINGS, placement=placement, user=user,
                              exercise_id="ex", source="print(2)\n").id
        # A worker takes both off the queue; it claims the first (it has not said "started":
        # the consumer is behind), the second vanished with a failover before any claim.
        while queues.grading.dequeue() is not None:
            pass
        assert queues.claim(taken, 1, "worker-a", 600)
        later = utcnow() + timedelta(seconds=5)
        assert service.resend_lost(session, queues, SETTINGS, later) == 1  # only the lost one
        assert queues.queued_jobs() == {(lost, 1)}
        # A copy of the taken job that got through anyway is refused by its claim.
        assert not queues.claim(taken, 1, "worker-b", 600)
        assert queues.claimed(taken, 1) and not queues.claimed(taken, 2)
    engine.dispose()


def test_a_worker_takes_no_more_runs_than_its_cores() -> None:
    cores = len(os.sched_getaffinity(0))
    assert admitted(1) == 1
    assert admitted(cores + 10) == cores
