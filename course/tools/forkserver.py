"""Runs of ``python SCRIPT ARGS`` forked from a process that has already imported JAX.

``course check`` runs a few hundred programs, and a cold process spends ~1 s of each importing
JAX. Inside ``prewarmed(env)``, ``course.tools.execute.run_python`` hands script runs to a
fork server (``forkserver_main.py``: what a child sees is described there) and runs anything
else cold: ``-c`` programs, and every run once the server did not start or died. Every run
inside gets ``env``, the environment the server imported JAX under, whatever the calling process
changes meanwhile (a test's monkeypatching, say). ``PATHWAYS_CHECK_COLD=1`` turns forking off.

The grader's warm runner forks learner runs from a parent that imported JAX in the same way;
receipts are still recorded by cold runs (``course record``), so every check of a forked run
against its receipt also compares the two kinds of run.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

SERVER_PATH = Path(__file__).with_name("forkserver_main.py")
START_TIMEOUT_S = 120.0


@dataclass
class _Run:
    started: threading.Event = field(default_factory=threading.Event)
    ended: threading.Event = field(default_factory=threading.Event)
    pid: int | None = None
    status: int | None = None
    lost: bool = False  # the server went away before reporting this run's end


class ForkServer:
    """One fork server process and the runs it is asked for (thread-safe)."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = dict(env)
        self._runs: dict[str, _Run] = {}
        self._lock = threading.Lock()  # the runs table
        self._write_lock = threading.Lock()  # requests to the server (never held with _lock)
        self._next = 0
        self._scratch = Path(tempfile.mkdtemp(prefix="pathways-forkserver-"))
        self._ready = threading.Event()
        self._gone = False  # the reader saw the server go: no run can be forked any more
        read_fd, write_fd = os.pipe()
        try:
            self._proc = subprocess.Popen(
                [sys.executable, str(SERVER_PATH), str(write_fd), str(os.getpid())],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                pass_fds=(write_fd,), env=self.env, cwd=self._scratch)
        finally:
            os.close(write_fd)
        self._replies = os.fdopen(read_fd, "r")
        self._reader = threading.Thread(target=self._read, name="forkserver-replies",
                                        daemon=True)
        self._reader.start()
        if not self._ready.wait(START_TIMEOUT_S) or not self.alive:
            self.close()
            raise RuntimeError("the fork server did not start")

    @property
    def pid(self) -> int:
        return self._proc.pid

    @property
    def alive(self) -> bool:
        return self._proc.poll() is None and not self._gone

    def _read(self) -> None:
        try:
            for line in self._replies:
                message = json.loads(line)
                if message.get("ready"):
                    self._ready.set()
                    continue
                with self._lock:
                    run = self._runs.get(message["id"])
                if run is None:
                    continue
                if "pid" in message:
                    run.pid = message["pid"]
                    run.started.set()
                else:
                    run.status = message["status"]
                    run.ended.set()
        except (ValueError, KeyError, OSError):
            pass  # a reply we cannot read: treated as the server going away
        finally:
            # Nothing more will be reported, so no run waits for it (each runs cold instead).
            self._ready.set()
            with self._lock:
                self._gone = True
                for run in self._runs.values():
                    run.lost = True
                    run.started.set()
                    run.ended.set()

    def run(self, argv: list[str], cwd: Path, timeout: float,
            extra_env: dict[str, str] | None = None,
            ) -> tuple[int | None, str, str, float] | None:
        """(exit code or None at the timeout, stdout, stderr, seconds); None when the server
        could not take the run (the caller runs it cold). ``extra_env`` is added to this run's
        environment only (XLA_FLAGS for logical devices: read when the run's own backend
        starts, which the server never did)."""
        start = time.monotonic()
        with self._lock:
            if self._gone:
                return None
            self._next += 1
            run_id = str(self._next)
            self._runs[run_id] = run = _Run()
        folder = Path(tempfile.mkdtemp(prefix=f"run-{run_id}-", dir=self._scratch))
        out, err = folder / "stdout", folder / "stderr"
        request = {"id": run_id, "argv": argv, "cwd": str(Path(cwd).resolve()),
                   "stdout": str(out), "stderr": str(err),
                   "env": {**self.env, **(extra_env or {})}}
        try:
            try:
                assert self._proc.stdin is not None
                with self._write_lock:
                    self._proc.stdin.write((json.dumps(request) + "\n").encode())
                    self._proc.stdin.flush()
            except (BrokenPipeError, OSError):
                return None
            run.started.wait()
            if run.pid is None:
                return None
            timed_out = not run.ended.wait(max(0.0, timeout - (time.monotonic() - start)))
            if timed_out:
                try:
                    os.killpg(run.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                run.ended.wait(30)
            if run.lost and not timed_out:
                return None
            return (None if timed_out else run.status, _text(out), _text(err),
                    time.monotonic() - start)
        finally:
            with self._lock:
                self._runs.pop(run_id, None)
            shutil.rmtree(folder, ignore_errors=True)

    def close(self) -> None:
        if self._proc.stdin is not None:
            try:
                self._proc.stdin.close()
            except OSError:
                pass
        try:
            self._proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._reader.join(timeout=5)
        self._replies.close()
        shutil.rmtree(self._scratch, ignore_errors=True)


def _text(path: Path) -> str:
    """What ``subprocess.run(text=True)`` would have decoded (universal newlines)."""
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except FileNotFoundError:
        return ""


_active: ForkServer | None = None
_active_lock = threading.Lock()
_thread = threading.local()


def active() -> ForkServer | None:
    """The server this thread's runs go to: its own (``use_in_this_thread``), else the one
    ``prewarmed`` started for the process."""
    return getattr(_thread, "server", None) or _active


def use_in_this_thread(server: ForkServer | None) -> None:
    """Send this thread's runs to ``server`` (e.g. a pool's initializer), not the process's."""
    _thread.server = server


def start(env: dict[str, str]) -> ForkServer | None:
    """A fork server started with ``env``, or None (every run cold) when PATHWAYS_CHECK_COLD
    turns forking off or the server cannot start."""
    if os.environ.get("PATHWAYS_CHECK_COLD", "") in ("1", "true", "yes"):
        return None
    try:
        return ForkServer(env)
    except (OSError, RuntimeError):
        return None


@contextmanager
def prewarmed(env: dict[str, str]) -> Iterator[ForkServer | None]:
    """Script runs inside go through one fork server started with ``env`` (nested uses share
    the outer one). Yields None, and every run stays cold, when it is turned off or cannot
    start."""
    global _active
    with _active_lock:
        outer = _active
    if outer is not None:
        yield outer
        return
    server = start(env)
    with _active_lock:
        _active = server
    try:
        yield server
    finally:
        with _active_lock:
            _active = None
        if server is not None:
            server.close()
