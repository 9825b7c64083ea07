"""Run one sandboxed process tree with hard limits and bounded pipes.

The run is started through a tiny root-side wrapper (``sh``) that joins the run's cgroups and
sets rlimits before exec'ing bwrap, so no ``preexec_fn`` runs in the (multi-threaded) worker.
A wall-clock timer kills the whole tree: bwrap is pid 1 of the run's pid namespace, so killing
its session kills everything inside, and the cgroups are swept as well.
"""

from __future__ import annotations

import logging
import os
import selectors
import signal
import subprocess
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from grader_worker.limits import Limits
from grader_worker.sandbox import cgroups

logger = logging.getLogger(__name__)

# Join each cgroup named before "--" (as root, before any privilege drop), then exec the rest.
WRAPPER = ('for f in "$@"; do case "$f" in --) break;; esac; echo $$ > "$f"; shift; done; '
           'shift; exec "$@"')


@dataclass
class RunOutcome:
    """What happened to the process tree, before any interpretation."""

    returncode: int | None = None
    stdout: bytes = b""
    stderr: bytes = b""
    values: bytes = b""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    timed_out: bool = False
    output_exceeded: bool = False
    values_exceeded: bool = False
    oom_killed: bool = False
    cgroup_version: int = 0
    wall_s: float = 0.0
    cpu_s: float | None = None
    """CPU seconds of the run's processes (None when not measured)."""
    notes: list[str] = field(default_factory=list)

    @property
    def signal(self) -> int | None:
        if self.returncode is not None and self.returncode < 0:
            return -self.returncode
        if self.returncode is not None and self.returncode > 128:
            return self.returncode - 128
        return None


def _prlimit_args(limits: Limits) -> list[str]:
    mb = 1024 * 1024
    return ["prlimit", f"--cpu={limits.cpu_s}:{limits.cpu_s + 1}",
            f"--fsize={limits.fsize_mb * mb}", f"--nofile={limits.nofile}", "--core=0",
            f"--data={limits.data_mb * mb}", "--"]


def run(make_cmd: Callable[[int], list[str]], *, limits: Limits, cgroup_root: str | None = None,
        excerpt_bytes: int = 16 * 1024) -> RunOutcome:
    """Run ``make_cmd(values_fd)`` (a bwrap command) under ``limits``; never raises for anything
    the program does. ``values_fd`` is the write end of the values pipe, inherited by the tree.

    stdout and stderr are read together up to ``limits.output_bytes`` (the run is killed past
    it); the values pipe (fd 3 inside) up to ``limits.values_bytes``.
    """
    out = RunOutcome()
    name = f"pathways-{uuid.uuid4().hex[:12]}"
    group: cgroups.RunCgroup | None = None
    try:
        group = cgroups.create(name, memory_bytes=limits.memory_mb * 1024 * 1024,
                               pids=limits.pids, root=cgroup_root)
        out.cgroup_version = group.version
    except OSError as exc:
        out.notes.append(f"no per-run cgroup ({exc}); memory and pids rely on rlimits")
        logger.warning("running without a cgroup", extra={"error": str(exc)})
    procs = [str(p) for p in group.procs_files] if group else []
    read_fd, write_fd = os.pipe()
    os.set_inheritable(write_fd, True)
    argv = ["/bin/sh", "-c", WRAPPER, "sh", *procs, "--", *_prlimit_args(limits),
            *make_cmd(write_fd)]
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            pass_fds=(write_fd,), start_new_session=True, close_fds=True,
            preexec_fn=None, env={"PATH": "/usr/bin:/bin"},
        )
    finally:
        os.close(write_fd)
    assert proc.stdout is not None and proc.stderr is not None
    deadline = start + limits.wall_s
    try:
        pump({"stdout": proc.stdout.fileno(), "stderr": proc.stderr.fileno(), "values": read_fd},
             limits, out, deadline, excerpt_bytes)
        if not (out.timed_out or out.output_exceeded or out.values_exceeded):
            try:  # all pipes closed: the tree is ending; wait for it within the deadline
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                out.timed_out = True
    finally:
        os.close(read_fd)
        _kill_tree(proc)
        out.returncode = proc.wait()
        out.wall_s = time.monotonic() - start
        if group is not None:
            out.oom_killed = group.oom_killed()
            group.remove()
    return out


def pump(fds: dict[str, int], limits: Limits, out: RunOutcome, deadline: float,
         excerpt_bytes: int) -> None:
    """Read the ``stdout``/``stderr``/``values`` descriptors until all reach EOF, the deadline
    passes (``timed_out``) or a cap is exceeded; output beyond the excerpt is counted, not kept."""
    sel = selectors.DefaultSelector()
    for name, fd in fds.items():
        sel.register(fd, selectors.EVENT_READ, name)
    total_output = 0
    buffers = {"stdout": bytearray(), "stderr": bytearray(), "values": bytearray()}
    while sel.get_map():
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            out.timed_out = True
            break
        for key, _ in sel.select(timeout=min(remaining, 0.5)):
            chunk = os.read(key.fd, 65536)
            if not chunk:
                sel.unregister(key.fd)
                continue
            buf = buffers[key.data]
            if key.data == "values":
                buf += chunk
                if len(buf) > limits.values_bytes:
                    out.values_exceeded = True
                continue
            total_output += len(chunk)
            room = excerpt_bytes - len(buf)
            if room > 0:
                buf += chunk[:room]
            if len(chunk) > room:
                setattr(out, f"{key.data}_truncated", True)
            if total_output > limits.output_bytes:
                out.output_exceeded = True
        if out.output_exceeded or out.values_exceeded:
            break
    sel.close()
    out.stdout, out.stderr = bytes(buffers["stdout"]), bytes(buffers["stderr"])
    out.values = bytes(buffers["values"])


def _kill_tree(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the run's session (bwrap is pid 1 of its namespace: everything inside dies)."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
