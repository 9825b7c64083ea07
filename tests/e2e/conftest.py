"""Fixtures for the end-to-end tests: the demo as a real subprocess, the local stack
(deploy/local/stack.sh) and a real Chromium (Debian's, driven by Playwright)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from devlms.server import free_port

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "e2e"


@dataclass
class DemoProcess:
    """A running `pathways demo`; its output is collected by a thread as it comes."""

    process: subprocess.Popen[str]
    tool_url: str
    lms_url: str
    lines: list[str] = field(default_factory=list)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def child_pids(self) -> list[int]:
        return [int(pid) for pid in re.findall(r"started .+ \(pid (\d+)\)", self.output)]

    def wait_for(self, text: str, timeout: float = 180.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.output:
            if self.process.poll() is not None:
                time.sleep(0.2)  # let the reader thread catch the last lines
                pytest.fail(f"demo exited ({self.process.returncode}) before {text!r}:\n"
                            + self.output[-4000:])
            if time.monotonic() > deadline:
                pytest.fail(f"no {text!r} from the demo in {timeout:.0f}s:\n" + self.output[-4000:])
            time.sleep(0.2)

    def interrupt(self, timeout: float = 60.0) -> int:
        """Ctrl-C, as from a terminal; returns the exit code."""
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=timeout)


@pytest.fixture
def start_demo() -> Iterator[Callable[[Path], DemoProcess]]:
    """Starts `pathways demo --dir DIR` on free ports; stops whatever is left at the end."""
    started: list[DemoProcess] = []
    ports: dict[str, int] = {}

    def start(state_dir: Path) -> DemoProcess:
        # The same ports on a second start: the LMS registration names them.
        ports.setdefault("tool", free_port())
        ports.setdefault("lms", free_port())
        env = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONUNBUFFERED": "1"}
        process = subprocess.Popen(
            [sys.executable, "-m", "pathways", "demo", "--dir", str(state_dir),
             "--tool-port", str(ports["tool"]), "--lms-port", str(ports["lms"])],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT,
            start_new_session=True,
        )
        demo = DemoProcess(process, f"http://localhost:{ports['tool']}",
                           f"http://127.0.0.1:{ports['lms']}")
        assert process.stdout is not None
        stdout = process.stdout
        threading.Thread(target=lambda: demo.lines.extend(iter(stdout.readline, "")),
                         daemon=True).start()
        started.append(demo)
        return demo

    yield start
    for demo in started:
        if demo.process.poll() is None:
            demo.process.send_signal(signal.SIGINT)
            try:
                demo.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(demo.process.pid, signal.SIGKILL)
                demo.process.wait()
        for pid in demo.child_pids():
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
