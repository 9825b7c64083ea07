"""Fixtures for the end-to-end tests: the demo as a real subprocess, the local stack
(deploy/local/stack.sh) and a real Chromium (Debian's, driven by Playwright)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests

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
    reader: threading.Thread | None = None

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
                           f"http://localhost:{ports['lms']}")
        assert process.stdout is not None
        stdout = process.stdout
        demo.reader = threading.Thread(
            target=lambda: demo.lines.extend(iter(stdout.readline, "")), daemon=True)
        demo.reader.start()
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
        if demo.reader is not None:
            demo.reader.join(timeout=10)  # EOF once the demo has exited
        if demo.process.stdout is not None and not (demo.reader and demo.reader.is_alive()):
            demo.process.stdout.close()


# --- the local stack (deploy/local/stack.sh) and a real Chromium --------------------------

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run",
                 # The stack's TLS certificate is self-signed (deploy/local/stack.sh).
                 "--ignore-certificate-errors"]


@dataclass
class LocalStack:
    """deploy/local/stack.sh running in its own state folder, on free ports."""

    env: dict[str, str]
    tool_url: str
    lms_url: str
    ca_bundle: str

    def run(self, *args: str, timeout: float = 300) -> str:
        result = subprocess.run(["bash", str(ROOT / "deploy/local/stack.sh"), *args],
                                env=self.env, capture_output=True, text=True, timeout=timeout,
                                cwd=ROOT)
        assert result.returncode == 0, f"stack.sh {' '.join(args)}:\n{result.stdout}{result.stderr}"
        return result.stdout

    def gradebook(self) -> dict:
        return requests.get(self.lms_url + "/gradebook.json", timeout=10).json()


def _need(path: str, package: str) -> None:
    if shutil.which(path) is None:
        pytest.skip(f"{path} is not installed (apt-get install {package}, "
                    "scripts/system-packages.sh)")


@pytest.fixture(scope="session")
def local_stack() -> Iterator[LocalStack]:
    """The whole many-machine shape on loopback: PostgreSQL, Redis, nginx (TLS) → gunicorn
    (2 workers), the consumer, 2 grader workers, devlms. Started once for the session."""
    _need("nginx", "nginx-light")
    _need("redis-server", "redis-server")
    # Under var/ (not /tmp/pytest-of-root, mode 0700): PostgreSQL runs as its own user.
    state = ROOT / "var" / f"e2e-stack-{os.getpid()}"
    env = {**os.environ, "PATHWAYS_STACK_DIR": str(state), "JAX_PLATFORMS": "cpu"}
    for name in ("TOOL", "LMS", "HTTPS", "HTTP", "PG", "REDIS"):
        env[f"PATHWAYS_STACK_{name}_PORT"] = str(free_port())
    for name in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "TOOL_BASE_URL"):
        env.pop(name, None)
    # A score posted while the LMS is down is retried after 2 s, not 30: the retry itself is
    # what test_score_pending_while_the_lms_is_down_arrives_when_it_is_back proves.
    env["OUTBOX_RETRY_BASE_S"] = "2"
    probe = LocalStack(env, "", "", "")
    exported = dict(re.findall(r"^export (\w+)=(.*)$", probe.run("env"), re.M))
    stack = LocalStack(env, exported["STACK_TOOL_URL"], exported["STACK_LMS_URL"],
                       exported["STACK_CA_BUNDLE"])
    try:
        print(stack.run("up"))
        yield stack
    finally:
        subprocess.run(["bash", str(ROOT / "deploy/local/stack.sh"), "down"], env=env,
                       capture_output=True, timeout=120, cwd=ROOT)
        logs = state / "logs"
        if logs.exists():
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            for log in logs.glob("*.log"):
                (ARTIFACTS / f"stack-{log.name}").write_bytes(log.read_bytes())
        subprocess.run(["rm", "-rf", str(state)], check=False)


@pytest.fixture(scope="session")
def playwright_driver():  # type: ignore[no-untyped-def]
    _need(CHROMIUM, "chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        yield driver


@pytest.fixture
def open_browser(playwright_driver, tmp_path):  # type: ignore[no-untyped-def]
    """Opens a Chromium profile. ``third_party_cookies=False`` is Chromium's own default (it
    blocks them); True is a browser that still allows them, as many LMS users' browsers do."""
    contexts = []

    def open_(third_party_cookies: bool,  # type: ignore[no-untyped-def]
              block_cookies_of: tuple[str, str] | None = None):
        """``block_cookies_of=(site, top_level)``: a site exception (chrome://settings/cookies,
        "not allowed to use cookies") for ``site`` wherever ``top_level`` embeds it, which
        covers partitioned cookies too."""
        profile = tmp_path / f"profile-{len(contexts)}"
        (profile / "Default").mkdir(parents=True)
        prefs: dict = {"profile": {}}
        if third_party_cookies:
            # cookie_controls_mode 0 ("allow third-party cookies" in chrome://settings/cookies).
            prefs["profile"]["cookie_controls_mode"] = 0
        if block_cookies_of is not None:
            pattern = ",".join(block_cookies_of)
            prefs["profile"]["content_settings"] = {
                "exceptions": {"cookies": {pattern: {"setting": 2}}}}
        (profile / "Default" / "Preferences").write_text(json.dumps(prefs))
        context = playwright_driver.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900})
        context.set_default_timeout(30_000)
        contexts.append(context)
        return context

    yield open_
    for context in contexts:
        context.close()


@pytest.fixture
def shoot(request):  # type: ignore[no-untyped-def]
    """Saves a full-page screenshot under test-artifacts/e2e/<test>/<name>.png."""
    folder = ARTIFACTS / request.node.name
    folder.mkdir(parents=True, exist_ok=True)

    def shoot_(page, name: str) -> Path:  # type: ignore[no-untyped-def]
        path = folder / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return shoot_
