"""The warm runner: one sandboxed zygote per worker thread forks a child per run.

Measured cold: 1.1-1.9 s a run, mostly importing JAX. A parent that has imported JAX but never
initialised a backend can fork safely, so the zygote (sandbox/zygote.py) imports it once inside
the same bwrap sandbox as a cold run, and each child runs the harness for one submission.

What a child shares with later runs, and why that is safe: the zygote's sandbox (same uid,
same private /tmp). Runs of one zygote are sequential; after each, every process in the
zygote's cgroup except the zygote itself is killed, its run directory is removed and /tmp is
emptied; the zygote is not dumpable, so a child cannot ptrace or read it. A child that kills
the zygote only ends its own run: the next run starts a new zygote. Memory and pids limits are
the zygote's cgroup (the child is the OOM killer's first choice); CPU, file size, open files
and data are the child's own rlimits.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from grader_worker.errors import SandboxUnavailable
from grader_worker.limits import Limits
from grader_worker.runner import SandboxRunner, write_calls
from grader_worker.sandbox import bwrap, cgroups, process

logger = logging.getLogger(__name__)
ZYGOTE = Path(__file__).with_name("sandbox") / "zygote.py"
MB = 1024 * 1024
ZYGOTE_MEMORY_MB = 768  # the imported JAX the zygote holds, on top of a run's limit
ZYGOTE_PIDS = 64


class Zygote:
    def __init__(self, runner: SandboxRunner, ceiling: Limits) -> None:
        self.runner = runner
        self.home = Path(tempfile.mkdtemp(prefix="warm-", dir=runner.base))
        if runner.run_uid is not None:
            os.chown(self.home, runner.run_uid, runner.run_uid)
        self.group = cgroups.create(f"pathways-warm-{uuid.uuid4().hex[:12]}",
                                    memory_bytes=(ceiling.memory_mb + ZYGOTE_MEMORY_MB) * MB,
                                    pids=ceiling.pids + ZYGOTE_PIDS,
                                    root=runner.config.cgroup_root)
        ours, theirs = socket.socketpair()
        theirs.set_inheritable(True)
        cmd = bwrap.command(python=runner.config.python, workdir=self.home,
                            harness=runner.harness, argv=[str(theirs.fileno())],
                            env=bwrap.sandbox_env(runner.config.platform, runner.run_uid),
                            platform=runner.config.platform, run_uid=runner.run_uid,
                            zygote=ZYGOTE)
        argv = ["/bin/sh", "-c", process.WRAPPER, "sh",
                *[str(p) for p in self.group.procs_files], "--", "prlimit", "--core=0",
                "--nofile=1024", "--", *cmd]
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, pass_fds=(theirs.fileno(),),
                                     start_new_session=True, env={"PATH": "/usr/bin:/bin"})
        theirs.close()
        self.control = ours
        self.buffer = b""
        self.control.settimeout(120)
        hello = self._read()
        if not hello.get("ready"):
            self.close()
            raise SandboxUnavailable("the warm sandbox did not start")
        self.keep = frozenset(self.group.pids())
        self.runs = 0

    def _read(self) -> dict[str, Any]:
        """One JSON line from the zygote (raises TimeoutError, EOFError)."""
        while b"\n" not in self.buffer:
            chunk = self.control.recv(4096)
            if not chunk:
                raise EOFError("zygote closed its control socket")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return json.loads(line)

    def _wait_status(self, status: dict[str, Any], deadline: float) -> None:
        """The child's wait status; then kill what it left behind, so its pipes reach EOF."""
        try:
            self.control.settimeout(max(0.5, deadline - time.monotonic()))
            try:
                status.update(self._read())
            except TimeoutError:
                status["late"] = True
                self.group.kill_all(self.keep)
                self.control.settimeout(10)
                status.update(self._read())
        except (EOFError, OSError, ValueError) as exc:
            status["error"] = exc
        finally:
            self.group.kill_all(self.keep)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, 9)
        self.proc.wait()
        self.control.close()
        self.group.remove()
        shutil.rmtree(self.home, ignore_errors=True)

    def run(self, source: str, names: tuple[str, ...], limits: Limits,
            calls: bytes | None = None) -> process.RunOutcome:
        out = process.RunOutcome(cgroup_version=self.group.version)
        self.runs += 1
        name = f"run-{self.runs}"
        workdir = self.home / name
        workdir.mkdir(mode=0o700)
        (workdir / "main.py").write_text(source, encoding="utf-8")
        extra = write_calls(workdir, calls, f"{bwrap.WORK}/{name}")
        if self.runner.run_uid is not None:
            os.chown(workdir, self.runner.run_uid, self.runner.run_uid)
        oom_before = self.group.oom_kills()
        pipes = {k: os.pipe() for k in ("stdout", "stderr", "values")}
        request = {"dir": f"{bwrap.WORK}/{name}", "names": list(names), "extra": extra,
                   "rlimits": {
            "RLIMIT_CPU": [limits.cpu_s, limits.cpu_s + 1], "RLIMIT_FSIZE": limits.fsize_mb * MB,
            "RLIMIT_NOFILE": limits.nofile, "RLIMIT_CORE": 0, "RLIMIT_DATA": limits.data_mb * MB}}
        start = time.monotonic()
        deadline = start + limits.wall_s
        try:
            socket.send_fds(self.control, [json.dumps(request).encode()],
                            [w for _, w in pipes.values()])
        finally:
            for _, w in pipes.values():
                os.close(w)
        try:
            self._read()  # {"pid": ...}: the child exists
            status: dict[str, Any] = {}
            waiter = threading.Thread(target=self._wait_status, args=(status, deadline))
            waiter.start()
            process.pump({k: r for k, (r, _) in pipes.items()}, limits, out, deadline,
                         excerpt_bytes=16 * 1024)
            if out.timed_out or out.output_exceeded or out.values_exceeded:
                self.group.kill_all(self.keep)
            waiter.join()
            if "error" in status:
                raise status["error"]
            out.timed_out = out.timed_out or status.get("late", False)
            out.returncode = _decode(status["status"])
        except (EOFError, OSError, ValueError) as exc:
            logger.warning("warm zygote lost during a run", extra={"error": str(exc)})
            out.returncode = -9
            out.notes.append("the warm parent died during the run")
        finally:
            for r, _ in pipes.values():
                os.close(r)
            self.group.kill_all(self.keep)
            for entry in self.home.iterdir():  # nothing of this run survives into the next
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    entry.unlink(missing_ok=True)
        out.wall_s = time.monotonic() - start
        out.oom_killed = self.group.oom_kills() > oom_before
        return out


def _decode(status: int) -> int:  # a wait status from the zygote
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


class WarmRunner(SandboxRunner):
    """Same contract as SandboxRunner.run; a zygote per calling thread, restarted when lost."""

    def __init__(self, *args: Any, ceiling: Limits | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ceiling = ceiling or Limits()
        self._local = threading.local()
        self._all: list[Zygote] = []
        self._lock = threading.Lock()

    def _zygote(self) -> Zygote:
        z: Zygote | None = getattr(self._local, "zygote", None)
        if z is None or not z.alive():
            if z is not None:
                z.close()
            z = Zygote(self, self.ceiling)
            self._local.zygote = z
            with self._lock:
                self._all.append(z)
        return z

    def run(self, source: str, names: tuple[str, ...], limits: Limits,
            calls: bytes | None = None) -> process.RunOutcome:
        return self._zygote().run(source, names, limits, calls)

    def close(self) -> None:
        with self._lock:
            for z in self._all:
                with contextlib.suppress(Exception):
                    z.close()
            self._all.clear()
        super().close()
