"""Each fault of "Nothing lost, nothing doubled, nothing stuck" against the real parts on
loopback, with a bounded load; each prints its row (sent / recorded / lost / duplicated /
posted twice with one timestamp / false failed / stuck / recovery time) and must be clean.

`make chaos` runs them all with a bigger load (CHAOS_LEARNERS, CHAOS_JOBS); CI runs the
``chaos_fast`` ones with the default load."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import Row, Servers, World, world

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.waits,
              # A server that restarts leaves pooled connections behind to be collected.
              pytest.mark.filterwarnings("ignore::ResourceWarning"),
              pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")]
LEARNERS = int(os.environ.get("CHAOS_LEARNERS", "8"))
JOBS = int(os.environ.get("CHAOS_JOBS", "20"))
SETTLE_S = float(os.environ.get("CHAOS_SETTLE_S", "120"))
ROWS: list[Row] = []
LOAD_ERRORS: list[BaseException] = []


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    # Under the repository: the postgres user must reach it (pytest's tmp is private to us).
    found = Servers(Path(__file__).resolve().parents[2] / "var" / "chaos-services")
    found.start()
    yield found
    found.stop()
    print("\n" + "\n".join(row.line() for row in ROWS))


@pytest.fixture(autouse=True)
def _consumer_env(monkeypatch: pytest.MonkeyPatch) -> None:
    # The consumer's leases: short enough that a lost message is found in seconds.
    monkeypatch.setenv("PATHWAYS_QUEUED_LEASE_S", "60")
    monkeypatch.setenv("PATHWAYS_RUNNING_LEASE_S", "15")
    # World sets these three in os.environ: setenv first records the value to restore (or
    # its absence), so they never outlive the test (another file's tests, after this one on
    # the same xdist worker, found REDIS_URL pointing at the chaos Redis, stopped by then).
    for name in ("REDIS_URL", "PATHWAYS_QUEUE_PREFIX", "PATHWAYS_VAR_DIR"):
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)


def _load(w: World) -> threading.Thread:
    """The load in the background: answers (each sent twice) and graded submissions."""
    def run() -> None:
        try:
            w.submit_jobs(JOBS // 2)
            w.answer_all(2)
            w.submit_jobs(JOBS - JOBS // 2)
        except BaseException as exc:  # noqa: BLE001 - reported by _finish
            LOAD_ERRORS.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _finish(w: World, fault: str, load: threading.Thread, fault_over: float) -> Row:
    load.join(SETTLE_S)
    assert not load.is_alive(), "the load did not finish"
    if LOAD_ERRORS:
        raise LOAD_ERRORS.pop()
    waited = w.wait_settled(SETTLE_S)
    row = w.count(fault, time.monotonic() - fault_over if waited != float("inf") else waited)
    ROWS.append(row)
    print(row.line())
    for reason in w.failed_reasons():
        print(f"  failed: {reason}")
    if w.consumer.exits:
        print(f"  consumer exits: {w.consumer.exits} (log {w.consumer.log})")
    return row


@pytest.mark.chaos_fast
def test_postgres_fast_restart(servers: Servers, tmp_path: Path) -> None:
    with world(servers, tmp_path, "pg") as w:
        w.launch(LEARNERS)
        load = _load(w)
        time.sleep(0.5)
        servers.pg_down()
        time.sleep(3.0)
        servers.start()
        row = _finish(w, "postgres restart (3s)", load, time.monotonic())
        assert w.consumer.restarts == 0, "the consumer exited instead of riding it out"
        assert row.clean, row.line()


@pytest.mark.chaos_fast
def test_redis_kill_9(servers: Servers, tmp_path: Path) -> None:
    with world(servers, tmp_path, "redis") as w:
        w.launch(LEARNERS)
        load = _load(w)
        time.sleep(0.5)
        servers.redis_kill()
        time.sleep(2.0)
        servers.start()
        row = _finish(w, "redis kill -9 (no AOF)", load, time.monotonic())
        assert w.consumer.restarts == 0, "the consumer exited instead of riding it out"
        # Redis without persistence loses claims and messages it held: a job whose result was
        # lost with it is graded again (the lease); everything else must be clean.
        assert (row.lost, row.duplicated, row.posted_twice, row.false_failed, row.stuck) == \
            (0, 0, 0, 0, 0), row.line()


@pytest.mark.chaos_fast
def test_lms_slower_than_the_post_timeout_and_strict_about_timestamps(
        servers: Servers, tmp_path: Path) -> None:
    with world(servers, tmp_path, "slow-lms") as w:
        w.launch(LEARNERS)
        w.lms.delay_s = 17.0  # over the connector's 15 s timeout: every first POST ambiguous
        load = _load(w)
        load.join(SETTLE_S)
        time.sleep(3.0)
        w.lms.delay_s = 0.0
        row = _finish(w, "LMS answers after 17s", load, time.monotonic())
        assert row.clean, row.line()


def test_consumer_sigkill_during_score_posts(servers: Servers, tmp_path: Path) -> None:
    with world(servers, tmp_path, "kill-consumer") as w:
        w.launch(LEARNERS)
        w.lms.delay_s = 3.0
        load = _load(w)
        time.sleep(4.0)
        w.consumer.kill()  # mid-POST: the supervisor restarts it
        time.sleep(1.0)
        w.lms.delay_s = 0.0
        row = _finish(w, "consumer SIGKILL mid-POST", load, time.monotonic())
        assert row.clean, row.line()


def test_lms_down(servers: Servers, tmp_path: Path) -> None:
    with world(servers, tmp_path, "lms-down") as w:
        w.launch(LEARNERS)
        w.lms.down = True
        load = _load(w)
        load.join(SETTLE_S)
        time.sleep(5.0)
        w.lms.down = False
        row = _finish(w, "LMS down", load, time.monotonic())
        assert row.clean, row.line()
