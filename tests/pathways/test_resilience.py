"""The one fault policy of the long-running parts, and the demo's restarts."""

from __future__ import annotations

import sqlite3
import sys
import threading
from pathlib import Path

import pytest

from grading_contract.errors import KeyConfigError
from pathways.demo import Child, Demo, DemoError, settings_from
from pathways.resilience import EXIT_CONFIG, Backoff, Guard, is_configuration, is_transient


def test_faults_that_pass_are_told_from_configuration_errors() -> None:
    from redis.exceptions import ConnectionError as RedisDown
    from sqlalchemy.exc import ArgumentError, OperationalError

    assert is_transient(OperationalError("select 1", {}, sqlite3.OperationalError("gone")))
    assert is_transient(RedisDown("refused"))
    assert is_transient(ConnectionRefusedError())
    assert not is_transient(ValueError("a bug"))
    assert is_configuration(KeyConfigError("short key"))
    assert is_configuration(ArgumentError("bad url"))


def test_the_guard_backs_off_goes_on_and_says_when_it_recovered(
        caplog: pytest.LogCaptureFixture) -> None:
    stopping = threading.Event()
    guard = Guard("part", stopping, backoff=Backoff(base_s=0.01, cap_s=0.02))
    calls = iter([ConnectionRefusedError("down"), ConnectionRefusedError("down"), 7])

    def tick() -> int:
        value = next(calls)
        if isinstance(value, Exception):
            raise value
        return value

    assert guard.call(tick, 0) == 0 and "retrying" in guard.state
    assert guard.call(tick, 0) == 0
    assert guard.call(tick, 0) == 7 and guard.state == "ok"
    assert guard.faults == 2
    messages = [r.getMessage() for r in caplog.records]
    assert sum("backing off" in m for m in messages) == 1  # once per outage, not per retry
    assert any("recovered after" in m for m in messages)
    with pytest.raises(KeyConfigError):
        guard.call(lambda: (_ for _ in ()).throw(KeyConfigError("no key")), 0)


def test_backoff_is_capped_and_jittered() -> None:
    backoff = Backoff(base_s=1.0, cap_s=4.0)
    delays = [backoff.next_delay() for _ in range(6)]
    assert all(0.5 <= d <= 4.0 for d in delays) and max(delays) > 2.0


def _demo_with(tmp_path: Path, code: int) -> tuple[Demo, Child]:
    demo = Demo(settings_from(str(tmp_path), 1, 2))
    child = Child("part", [sys.executable, "-c", f"import sys; sys.exit({code})"])
    demo.children = [child]
    demo.start(child)
    child.process.wait()  # type: ignore[union-attr]
    return demo, child


def test_the_demo_restarts_a_part_that_dies(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    demo, child = _demo_with(tmp_path, 3)
    first = child.process
    demo.check_alive()
    assert child.process is not first and len(child.restarts) == 1
    assert "part exited (code 3); restarting it" in capsys.readouterr().err
    for _ in range(4):
        child.process.wait()  # type: ignore[union-attr]
        demo.check_alive()
    child.process.wait()  # type: ignore[union-attr]
    with pytest.raises(DemoError, match="5 times"):
        demo.check_alive()


def test_the_demo_does_not_restart_a_configuration_error(tmp_path: Path) -> None:
    demo, _ = _demo_with(tmp_path, EXIT_CONFIG)
    with pytest.raises(DemoError, match="configuration error"):
        demo.check_alive()
