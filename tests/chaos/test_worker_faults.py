"""A real `pathways worker` through a Redis kill -9 mid-job: it neither exits nor loses the
result (it sends it again once Redis is back), and the job is graded and recorded once.
`make chaos` runs it (a JAX run in the sandbox: too slow for CI's fast subset)."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from faults import Servers
from sqlalchemy import func, select

from lti_service.consumer import Consumer
from lti_service.submissions.models import GradingRun, Submission
from lti_service.submissions.settings import GradingSettings

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "lti_service"))
from test_submissions_lease import _exercise, _kill, _world  # noqa: E402

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow,
              pytest.mark.filterwarnings("ignore::ResourceWarning"),
              pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")]
SETTINGS = GradingSettings(queued_lease_s=120, running_lease_s=60, max_tries=3)


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    found = Servers(Path(__file__).resolve().parents[2] / "var" / "chaos-services")
    found.start()
    yield found
    found.stop()


def test_a_worker_rides_out_a_redis_kill_mid_job(servers: Servers, tmp_path: Path) -> None:
    world = _world(tmp_path, servers.redis_url)
    exercise_id, solution = _exercise()
    sid = world.submit(exercise_id, "import time\ntime.sleep(3)\n" + solution)
    consumer = Consumer(world.sessions, world.queues, SETTINGS)

    def until(done, timeout: float) -> None:  # noqa: ANN001
        deadline = time.time() + timeout
        while time.time() < deadline:
            consumer.guard.call(consumer.drain, 0)
            consumer.guard.call(consumer.reap, 0)
            if done():
                return
            time.sleep(0.2)
        raise AssertionError(f"timed out; worker log: {(tmp_path / 'w.log').read_text()[-3000:]}")

    worker = world.worker("w")
    try:
        until(lambda: world.row(sid).status == "running", 120)
        servers.redis_kill()
        time.sleep(12.0)  # longer than the run: its result is sent while Redis is down
        servers.start()
        until(lambda: world.row(sid).status == "graded", 180)
        assert worker.poll() is None, "the worker exited"
        with world.sessions() as session:
            runs = session.scalar(select(func.count()).select_from(GradingRun).where(
                GradingRun.submission_id == sid))
            row = session.get(Submission, sid)
        assert runs == 1 and row.grading_try == 1 and row.score == row.max_score
        log = (tmp_path / "w.log").read_text()
        assert "worker send result: ConnectionError; retrying" in log, log[-2000:]
    finally:
        _kill(worker)
