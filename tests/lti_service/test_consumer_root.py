"""`pathways consumer` as the composition root: a configuration error ends it with 78 (no
restart loop), results are applied at least once, and `pathways status` shows each part."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from grading_contract.config import QueueConfig
from grading_contract.queues import Queues
from lti_service.consumer import Consumer
from lti_service.core import health
from lti_service.core.db import make_engine, make_session_factory, upgrade
from lti_service.core.models import PartHeartbeat, utcnow
from lti_service.status import status
from lti_service.submissions.settings import GradingSettings
from pathways.resilience import EXIT_CONFIG


def test_a_configuration_error_ends_the_consumer_with_78(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "PATHWAYS_VAR_DIR": str(tmp_path),
           "DATABASE_URL": "nosuchdriver://x/y"}
    done = subprocess.run([sys.executable, "-m", "pathways", "consumer"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == EXIT_CONFIG, done.stderr[-2000:]
    assert "configuration error" in done.stderr


@pytest.fixture
def sessions(tmp_path: Path):  # type: ignore[no-untyped-def]
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    upgrade(url)
    engine = make_engine(url)
    yield make_session_factory(engine), url
    engine.dispose()


def test_a_results_message_stays_queued_until_it_was_applied(sessions, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    factory, _ = sessions
    queues = Queues(QueueConfig(var_dir=tmp_path / "var", redis_url=None, queue_prefix="t-",
                                grading_key=b"k" * 32))
    consumer = Consumer(factory, queues, GradingSettings())
    queues.send("heartbeat", submission_id="nope", attempt=1, worker="w")
    calls = []

    def down(message: dict) -> None:
        calls.append(message)
        raise ConnectionRefusedError("the database is down")

    queues.on_message = down
    with pytest.raises(ConnectionRefusedError):
        consumer.drain()
    assert queues.pending()["results"] == 1  # not lost with the failed application
    queues.on_message = consumer._on_message
    assert consumer.drain() == 1 and queues.pending()["results"] == 0
    assert consumer.counts == {"stale": 1}


def test_status_shows_each_part_and_says_when_one_is_down(sessions, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    factory, url = sessions
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("PATHWAYS_VAR_DIR", str(tmp_path / "var"))
    monkeypatch.delenv("REDIS_URL", raising=False)
    health.beat(factory, "consumer")
    health.beat(factory, "outbox", "waiting (OperationalError), retrying in 2.0s")
    result = CliRunner().invoke(status, [])
    assert result.exit_code == 1, result.output  # no worker has beat
    assert "consumer" in result.output and "retrying in 2.0s" in result.output
    assert "none has beat" in result.output and "queue: 0 job(s) waiting" in result.output
    from grading_contract.config import load_queue_config

    Queues(load_queue_config()).beat("host:1", "ok")
    assert CliRunner().invoke(status, []).exit_code == 0
    with factory() as session:
        session.get(PartHeartbeat, "outbox").beat_at = utcnow() - timedelta(minutes=5)
        session.commit()
    late = CliRunner().invoke(status, [])
    assert late.exit_code == 1 and "STALE" in late.output
