"""scripts/pytest-suite.sh, the pytest part of `make test`: a SIGTERM ends every process the
whole suite started (issue 26), the fork server of the content process and the xdist workers
included, and the script says it was stopped (143), not passed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

pytestmark = pytest.mark.waits  # mostly waiting: run early (tests/conftest.py:file_order)
ROOT = Path(__file__).resolve().parents[2]
SLEEPER = "import time\n\n\ndef test_sleeps():\n    time.sleep(600)\n"
XDIST_WORKER = "exec(eval(sys.stdin"  # how execnet starts a popen worker


def _tree(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def _cmdline(process: psutil.Process) -> str:
    try:
        return " ".join(process.cmdline())
    except psutil.Error:
        return ""


def _running(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.mark.slow
def test_a_sigterm_ends_every_process_the_whole_suite_started(tmp_path: Path) -> None:
    (tmp_path / "test_sleeper.py").write_text(SLEEPER)
    env = {**os.environ, "PATHWAYS_TEST_PYTHON": sys.executable,
           "PATHWAYS_TEST_RESULTS": str(tmp_path / "results"),
           "PATHWAYS_TEST_SUITE": str(tmp_path / "test_sleeper.py"), "PATHWAYS_TEST_WORKERS": "2"}
    script = subprocess.Popen(["bash", str(ROOT / "scripts/pytest-suite.sh")], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    started: list[psutil.Process] = []
    try:
        deadline = time.monotonic() + 240
        while True:  # both halves under way: the content's fork server, two busy workers
            started = _tree(script.pid)
            lines = [_cmdline(p) for p in started]
            if (any("forkserver_main.py" in line for line in lines)
                    and sum(XDIST_WORKER in line for line in lines) >= 2):
                break
            assert script.poll() is None, "the suite ended before it was stopped"
            assert time.monotonic() < deadline, lines
            time.sleep(0.5)
        time.sleep(2)  # the workers into the sleeping test, the background into its runs
        started = _tree(script.pid)
        script.send_signal(signal.SIGTERM)
        assert script.wait(timeout=60) == 143
        deadline = time.monotonic() + 30
        while (left := [p for p in started if _running(p)]) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not left, [_cmdline(p) for p in left]
    finally:
        if script.poll() is None:
            script.kill()
        for process in started:
            if _running(process):
                process.kill()
