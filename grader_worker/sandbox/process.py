"""Run one sandboxed process tree with hard limits and bounded pipes.

The run is started through a tiny root-side wrapper (``sh``) that joins the run's cgroups and
sets rlimits before exec'ing bwrap, so no ``preexec_fn`` runs in the (multi-threaded) worker.
A wall-clock timer kills the whole tree: bwrap is pid 1 of the run's pid namespace, so killing
its session kills everything inside, and the cgroups are swept as well.

"The sandbox could not start" is told from "the program ran" by bwrap's ``--json-status-fd``,
a descriptor the sandboxed program never holds: bwrap writes ``exit-code`` there only when the
program it started inside the sandbox ended, never when setting the sandbox up (or exec'ing the
program) failed. Whatever the program prints, it cannot make its run look like our failure.
The run's CPU time is its cgroup's CPU accounting (bwrap's own rusage misses its children).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import logging
import os
import selectors
import signal
import subprocess
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from grader_worker.errors import SandboxUnavailable
from grader_worker.limits import Limits
from grader_worker.sandbox import bwrap, cgroups

logger = logging.getLogger(__name__)

PR_SET_CHILD_SUBREAPER = 36
_adopting = False

# Join each cgroup named before "--" (as root, before any privilege drop), then exec the rest.
WRAPPER = ('for f in "$@"; do case "$f" in --) break;; esac; echo $$ > "$f"; shift; done; '
           'shift; exec "$@"')
STATUS_BYTES = 4096


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
    peak_memory_bytes: int | None = None
    """The run's cgroup's peak memory use (None when not measured)."""
    cgroup_version: int = 0
    wall_s: float = 0.0
    cpu_s: float | None = None
    """CPU seconds of the whole run (None when not measured)."""
    setup_failed: bool = False
    """bwrap reported no exit of the program, and we did not kill it: the sandbox never ran."""
    status: bytes = b""
    """What bwrap wrote on its --json-status-fd (JSON lines)."""
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


def _run_cgroup(name: str, limits: Limits, root: str | None, required: bool,
                out: RunOutcome) -> cgroups.RunCgroup | None:
    """The run's cgroup; None (noted in ``out``) only when one is not ``required``."""
    try:
        group = cgroups.create(name, memory_bytes=limits.memory_mb * 1024 * 1024,
                               pids=limits.pids, root=root)
    except OSError as exc:
        if required:
            raise SandboxUnavailable(f"no cgroup for this run ({type(exc).__name__}: "
                                     f"{exc.strerror or exc}); not run on rlimits alone") from exc
        out.notes.append(f"no per-run cgroup ({exc}); memory and pids rely on rlimits")
        logger.warning("running without a cgroup (allowed)", extra={"error": str(exc)})
        return None
    out.cgroup_version = group.version
    return group


def run(make_cmd: Callable[[int], list[str]], *, limits: Limits, cgroup_root: str | None = None,
        excerpt_bytes: int = 16 * 1024, name_prefix: str = "pathways-",
        pass_fds: tuple[int, ...] = (), require_cgroup: bool = True) -> RunOutcome:
    """Run ``make_cmd(values_fd)`` (a bwrap command) under ``limits``; never raises for anything
    the program does. ``values_fd`` is the write end of the values pipe, inherited by the tree;
    ``pass_fds`` are inherited too (what bwrap reads: main.py, the seccomp program).

    stdout and stderr are read together up to ``limits.output_bytes`` (the run is killed past
    it); the values pipe (fd 3 inside) up to ``limits.values_bytes``. The run's cgroup is
    named ``name_prefix`` + a random part (the worker's owner tag, see grader_worker/sweep.py).
    Without its cgroup a run has no pids or memory limit: it is not started, and
    ``SandboxUnavailable`` (retried elsewhere, never charged) names why, unless
    ``require_cgroup`` is False (PATHWAYS_GRADER_ALLOW_NO_CGROUP, the demo).
    """
    out = RunOutcome()
    group = _run_cgroup(f"{name_prefix}{uuid.uuid4().hex[:12]}", limits, cgroup_root,
                        require_cgroup, out)
    procs = [str(p) for p in group.procs_files] if group else []
    read_fd, write_fd = os.pipe()
    status_read, status_write = os.pipe()
    os.set_inheritable(write_fd, True)
    os.set_inheritable(status_write, True)
    cmd = make_cmd(write_fd)
    watched = bwrap.is_bwrap(cmd)
    if watched:
        cmd = bwrap.with_status_fd(cmd, status_write)
    argv = ["/bin/sh", "-c", WRAPPER, "sh", *procs, "--", *_prlimit_args(limits), *cmd]
    start = time.monotonic()
    proc = _spawn(argv, (write_fd, status_write), pass_fds)
    deadline = start + limits.wall_s
    try:
        pump({"stdout": proc.stdout.fileno(), "stderr": proc.stderr.fileno(), "values": read_fd,
              "status": status_read}, limits, out, deadline, excerpt_bytes)
        if not (out.timed_out or out.output_exceeded or out.values_exceeded):
            try:  # all pipes closed: the tree is ending; wait for it within the deadline
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                out.timed_out = True
    finally:
        os.close(read_fd)
        os.close(status_read)
        _kill_tree(proc, group)
        out.returncode = proc.wait()
        reap_sandbox_orphans()
        out.wall_s = time.monotonic() - start
        if group is not None:
            out.oom_killed = group.oom_killed()
            out.peak_memory_bytes = group.peak_memory_bytes()
            out.cpu_s = group.cpu_seconds()
            group.remove()
    killed_by_us = out.timed_out or out.output_exceeded or out.values_exceeded
    out.setup_failed = watched and not killed_by_us and program_exit(out.status) is None
    return out


def _spawn(argv: list[str], own: tuple[int, ...],
           pass_fds: tuple[int, ...]) -> subprocess.Popen[bytes]:
    """Start ``argv`` in a session of its own, with the ``own`` write ends (closed here)."""
    try:
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            pass_fds=(*own, *pass_fds), start_new_session=True, close_fds=True,
            preexec_fn=None, env={"PATH": "/usr/bin:/bin"},
        )
    finally:
        for fd in own:
            os.close(fd)
    assert proc.stdout is not None and proc.stderr is not None
    return proc


def program_exit(status: bytes) -> int | None:
    """The ``exit-code`` bwrap reported for the sandboxed program, or None if it reported none
    (the sandbox was not set up, or the program was never started)."""
    for line in status.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        code = record.get("exit-code") if isinstance(record, dict) else None
        if isinstance(code, int) and not isinstance(code, bool):
            return code
    return None




def pump(fds: dict[str, int], limits: Limits, out: RunOutcome, deadline: float,
         excerpt_bytes: int) -> None:
    """Read the ``stdout``/``stderr``/``values`` descriptors until all reach EOF, the deadline
    passes (``timed_out``) or a cap is exceeded; output beyond the excerpt is counted, not kept."""
    sel = selectors.DefaultSelector()
    for name, fd in fds.items():
        sel.register(fd, selectors.EVENT_READ, name)
    total_output = 0
    buffers = {"stdout": bytearray(), "stderr": bytearray(), "values": bytearray(),
               "status": bytearray()}
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
            if key.data == "status":  # bwrap's own JSON lines: a few hundred bytes
                buf += chunk[: max(0, STATUS_BYTES - len(buf))]
                continue
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
    out.status = bytes(buffers["status"])


def _kill_tree(proc: subprocess.Popen[bytes], group: cgroups.RunCgroup | None = None) -> None:
    """SIGKILL the run: first everything in its cgroup but bwrap itself, which then reaps its
    pid namespace's init and exits (killed first, bwrap would orphan that init: a zombie of the
    host's init, or of this worker when it is pid 1 of a container, where none reaps it); then
    bwrap's session, whatever is still there."""
    if proc.poll() is None and group is not None:
        group.kill_all(keep=frozenset({proc.pid}))
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=2)
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


def adopt_orphans(on: bool = True) -> None:
    """Make this process the reaper of its descendants' orphans (as pid 1 of a container it
    already is). bwrap's outer process may exit, once its pid namespace's init has reported the
    exit status, before it reaps that init: orphaned, the init stays a zombie of whoever adopts
    it, one per run. The worker adopts them and ``reap_sandbox_orphans`` reaps them."""
    global _adopting
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) == 0:
        _adopting = on


def reap_sandbox_orphans() -> int:
    """Reap each zombie child of ours that lived in a nested pid namespace (an orphaned
    sandbox init): never a child this process started itself, whose exit status a
    ``subprocess.Popen`` must read. Returns how many were reaped."""
    if not (_adopting or os.getpid() == 1):
        return 0
    me, reaped = os.getpid(), 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status") as handle:
                fields = dict(line.split(":", 1) for line in handle if ":" in line)
        except OSError:
            continue
        nested = len(fields.get("NSpid", "").split()) > 1
        if fields.get("State", "").split()[:1] == ["Z"] and nested and \
                int(fields.get("PPid", "0")) == me:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(int(entry.name), os.WNOHANG)
                reaped += 1
    return reaped
