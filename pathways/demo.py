"""`pathways demo`: the whole system on one machine, as child processes of one command.

The tool service on SQLite, the embedded SqliteHuey queue, one grader worker, the result
consumer and the local LMS (devlms), all sharing one state folder (``var/demo``), so a second
start finds the same database, queue and keys. Each child gets its own process group and log
file; Ctrl-C or SIGTERM stops them in order (the LMS and the web first, the queue's readers
last) and waits for every one, so nothing is left running.

Host names: the tool and the LMS are both ``http://localhost`` (two ports). That makes them one
*site*, so the tool's login cookie reaches it inside the LMS iframe over plain HTTP, with no
certificate to install, even in browsers that block third-party cookies (Chromium does by
default). The real cross-site case (TLS, ``SameSite=None; Secure``, the new-window fallback) is
what the local stack and the browser tests run: deploy/local/stack.sh, tests/e2e.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

import click

from pathways.resilience import EXIT_CONFIG

log = logging.getLogger(__name__)

# What the demo's children import that only the demo extra installs (service, grader, devlms).
DEMO_NEEDS = ("flask", "sqlalchemy", "huey", "jax", "lti1p3platform")
STOP_TIMEOUT_S = 15.0
START_TIMEOUT_S = 90.0
MAX_RESTARTS = 5
RESTART_WINDOW_S = 60.0


@dataclass
class Child:
    """One process of the demo: how to start it, and how it asks to be stopped."""

    name: str
    argv: list[str]
    port: int | None = None
    stop_signal: int = signal.SIGTERM
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    restarts: list[float] = field(default_factory=list, repr=False)


@dataclass(frozen=True)
class DemoSettings:
    """Where the demo lives and listens; every field has a working default."""

    state_dir: Path
    tool_host: str
    lms_host: str
    tool_port: int
    lms_port: int

    @property
    def tool_url(self) -> str:
        return f"http://{self.tool_host}:{self.tool_port}"

    @property
    def lms_url(self) -> str:
        return f"http://{self.lms_host}:{self.lms_port}"

    @property
    def log_dir(self) -> Path:
        return self.state_dir / "logs"

    @property
    def lms_state_dir(self) -> Path:
        return self.state_dir / "lms"


def child_env(settings: DemoSettings) -> dict[str, str]:
    """The environment every child shares: one state folder, embedded queue, SQLite."""
    env = dict(os.environ)
    # An operator's shell must not point the demo at a real deployment.
    for name in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "COURSE_ROOT"):
        env.pop(name, None)
    env.update(
        PATHWAYS_VAR_DIR=str(settings.state_dir),
        TOOL_BASE_URL=settings.tool_url,
        # The local LMS is on localhost: the tool may fetch its key set there.
        OUTBOUND_ALLOW_PRIVATE="1",
        # Your own code on your own machine: a non-root user may have no cgroup to delegate,
        # and the worker then runs with rlimits only (it says so in its log).
        PATHWAYS_GRADER_ALLOW_NO_CGROUP=env.get("PATHWAYS_GRADER_ALLOW_NO_CGROUP", "1"),
        JAX_PLATFORMS="cpu",
        PYTHONUNBUFFERED="1",
    )
    return env


def pathways_argv(*args: str) -> list[str]:
    """Run a `pathways` subcommand with this interpreter (works without the console script)."""
    return [sys.executable, "-m", "pathways", *args]


def children(settings: DemoSettings) -> list[Child]:
    """The demo's processes, in start order (stopped in reverse)."""
    return [
        Child("grader worker", pathways_argv("worker", "--platform", "cpu", "--concurrency", "1")),
        Child("consumer", pathways_argv("consumer"), stop_signal=signal.SIGINT),
        Child("tool service", pathways_argv("serve", "--host", "127.0.0.1",
                                            "--port", str(settings.tool_port)),
              port=settings.tool_port),
        # The LMS's key, placements and gradebook in the state folder too: a second start
        # finds the links the instructor placed (and the tokens it issued stay valid).
        Child("local LMS", [sys.executable, "-m", "devlms", "--host", settings.lms_host,
                            "--port", str(settings.lms_port), "--tool", settings.tool_url,
                            "--state-dir", str(settings.lms_state_dir)],
              port=settings.lms_port),
    ]


def port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def log_tail(path: Path, lines: int = 15) -> str:
    if not path.exists():
        return "(no output)"
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


class DemoError(click.ClickException):
    """A demo that cannot start; the message says why and what to do."""


class Demo:
    """Starts the children, watches them, stops them all."""

    def __init__(self, settings: DemoSettings) -> None:
        self.settings = settings
        self.env = child_env(settings)
        self.children = children(settings)
        self.stopping = False

    def log_path(self, child: Child) -> Path:
        return self.settings.log_dir / (child.name.replace(" ", "-") + ".log")

    def run_once(self, argv: Sequence[str], what: str) -> str:
        """Run a setup command to completion; its failure stops the demo with its output."""
        result = subprocess.run(list(argv), env=self.env, capture_output=True, text=True,
                                timeout=300, cwd=Path.cwd())
        if result.returncode != 0:
            raise DemoError(f"{what} failed (exit {result.returncode}):\n"
                            f"{(result.stdout + result.stderr).strip()[-3000:]}")
        return result.stdout

    def check_ports(self) -> None:
        for child in self.children:
            if child.port is not None and not port_free(child.port):
                raise DemoError(f"port {child.port} ({child.name}) is already in use: stop what "
                                "uses it, or choose other ports with --tool-port / --lms-port")

    def start(self, child: Child) -> None:
        self.settings.log_dir.mkdir(parents=True, exist_ok=True)
        with open(self.log_path(child), "ab") as out:
            # Own process group: the terminal's Ctrl-C reaches only us; we stop children in order.
            child.process = subprocess.Popen(child.argv, env=self.env, stdout=out,
                                             stderr=subprocess.STDOUT, start_new_session=True)
        log.info("started %s (pid %d)", child.name, child.process.pid)

    def wait_ready(self, child: Child) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while child.port is not None and not port_open(child.port):
            self.check_alive()
            if self.stopping:
                return
            if time.monotonic() > deadline:
                raise DemoError(f"{child.name} did not listen on port {child.port} within "
                                f"{START_TIMEOUT_S:.0f}s; its log ({self.log_path(child)}):\n"
                                + log_tail(self.log_path(child)))
            time.sleep(0.2)

    def check_alive(self) -> None:
        """Restart a child that died, with a line saying so (as the systemd units do); stop
        the demo when it cannot help: a configuration error (exit 78), or a child that keeps
        dying (``MAX_RESTARTS`` within ``RESTART_WINDOW_S``)."""
        for child in self.children:
            if child.process is None or child.process.poll() is None or self.stopping:
                continue
            code = child.process.returncode
            now = time.monotonic()
            child.restarts = [t for t in child.restarts if now - t < RESTART_WINDOW_S]
            if code == EXIT_CONFIG or len(child.restarts) >= MAX_RESTARTS:
                why = ("a configuration error" if code == EXIT_CONFIG
                       else f"it exited {MAX_RESTARTS} times in {RESTART_WINDOW_S:.0f}s")
                raise DemoError(f"{child.name} exited (code {code}): {why}; its log "
                                f"({self.log_path(child)}):\n" + log_tail(self.log_path(child)))
            child.restarts.append(now)
            click.echo(f"{child.name} exited (code {code}); restarting it "
                       f"(restart {len(child.restarts)}; its log: {self.log_path(child)})",
                       err=True)
            self.start(child)

    def register_platform(self) -> None:
        """Register the local LMS with the tool once; a second start finds it there."""
        from devlms.config import DevLmsConfig

        lms = DevLmsConfig(base_url=self.settings.lms_url, tool_base_url=self.settings.tool_url)
        args = lms.registration_args
        listing = self.run_once(pathways_argv("platform", "list"), "listing platforms")
        if any(line.split("\t")[1:3] == [args["issuer"], args["client_id"]]
               for line in listing.splitlines() if "\t" in line):
            log.info("the local LMS is already registered (%s)", args["issuer"])
            return
        self.run_once(pathways_argv(
            "platform", "add", "--issuer", args["issuer"], "--client-id", args["client_id"],
            "--login-url", args["auth_login_url"], "--token-url", args["auth_token_url"],
            "--key-set-url", args["key_set_url"], "--deployment", lms.deployment_id,
            "--name", "local LMS (demo)"), "registering the local LMS")
        click.echo(f"registered the local LMS with the tool: issuer {args['issuer']}")

    def stop(self) -> None:
        """Stop every child, newest first; SIGKILL what is still there after the timeout."""
        self.stopping = True
        for child in reversed(self.children):
            if child.process is not None and child.process.poll() is None:
                try:
                    os.killpg(child.process.pid, child.stop_signal)
                except ProcessLookupError:
                    continue
        deadline = time.monotonic() + STOP_TIMEOUT_S
        for child in reversed(self.children):
            if child.process is None:
                continue
            try:
                child.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.warning("%s did not stop in %.0fs: killing it", child.name, STOP_TIMEOUT_S)
                os.killpg(child.process.pid, signal.SIGKILL)
                child.process.wait()
            # Grandchildren (sandboxed runs, server reloaders) share the group: none may stay.
            try:
                os.killpg(child.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            click.echo(f"stopped {child.name}")

    def banner(self) -> str:
        s = self.settings
        return f"""
JAX Pathways demo is running. Data: {s.state_dir} (kept between runs). Logs: {s.log_dir}

  local LMS (open this first)  {s.lms_url}/
  LTI tool service             {s.tool_url}/
  grader worker, consumer      embedded queue in {s.state_dir}

As the instructor (the LMS course page, "Teacher"):
  1. "Add content" opens the tool's deep-linking picker: place lessons, their checkpoints and
     exercises in the course.
  2. The gradebook shows a column for each checkpoint and exercise you placed.
As a learner (switch to "Alice" or "Bob" on the LMS page):
  3. Open a lesson: it loads inside the LMS page (an iframe of the tool).
  4. Answer the checkpoint, then submit main.py for an exercise (download the starter, fill it
     in, upload it); the grader runs it and shows the score and feedback.
  5. Back in the LMS gradebook (as the instructor) the score has arrived.

Ctrl-C stops everything.
"""

    def run(self) -> None:
        self.check_ports()
        self.settings.state_dir.mkdir(parents=True, exist_ok=True)
        self.run_once(pathways_argv("db", "upgrade"), "creating the database")
        self.register_platform()
        for child in self.children:
            self.start(child)
            self.wait_ready(child)
            if self.stopping:
                return
        click.echo(self.banner())
        while not self.stopping:
            self.check_alive()
            time.sleep(0.5)


def settings_from(state_dir: str, tool_port: int, lms_port: int) -> DemoSettings:
    return DemoSettings(state_dir=Path(state_dir).resolve(), tool_host="localhost",
                        lms_host="localhost", tool_port=tool_port, lms_port=lms_port)


@click.command()
@click.option("--dir", "state_dir", envvar="PATHWAYS_DEMO_DIR", default="var/demo",
              show_default=True, help="State folder, kept between runs (PATHWAYS_DEMO_DIR).")
@click.option("--tool-port", envvar="PATHWAYS_DEMO_TOOL_PORT", default=5000, show_default=True,
              type=click.IntRange(1, 65535), help="The tool service's port.")
@click.option("--lms-port", envvar="PATHWAYS_DEMO_LMS_PORT", default=5001, show_default=True,
              type=click.IntRange(1, 65535), help="The local LMS's port.")
def demo(state_dir: str, tool_port: int, lms_port: int) -> None:
    """Run everything on one machine with a local LMS (Ctrl-C stops it; data is kept)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    missing = [name for name in DEMO_NEEDS if importlib.util.find_spec(name) is None]
    if missing:  # before any child starts, not as a child's traceback
        raise click.ClickException(f"`pathways demo` needs the demo extra ({', '.join(missing)} "
                                   "not installed): pip install 'jax-pathways[demo]'")
    if tool_port == lms_port:
        raise click.BadParameter("the tool and the LMS need different ports", param_hint="ports")
    runner = Demo(settings_from(state_dir, tool_port, lms_port))

    def on_signal(signum: int, frame: FrameType | None) -> None:
        runner.stopping = True

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        runner.run()
    finally:
        runner.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    click.echo(f"demo stopped; data kept in {runner.settings.state_dir}")
