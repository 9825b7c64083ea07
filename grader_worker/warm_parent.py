"""One warm parent, the worker's side (warm.py's WarmRunner keeps one per thread): the zygote
(sandbox/zygote.py) started in its bwrap sandbox and a cgroup of its own, each run forked from
it into a leaf cgroup with the job's limits, and a control socket whose every reply is checked
(the run id and the expected fields) before it is believed.
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

from course.devices import MAX_DEVICES, device_env
from grader_worker.errors import SandboxUnavailable
from grader_worker.limits import Limits
from grader_worker.runner import SandboxRunner
from grader_worker.sandbox import bwrap, cgroups, process

logger = logging.getLogger(__name__)

ZYGOTE = Path(__file__).with_name("sandbox") / "zygote.py"
MB = 1024 * 1024
ZYGOTE_MEMORY_MB = 768  # the imported JAX the zygote holds, on top of a run's limit
ZYGOTE_PIDS = 64
START_TIMEOUT_S = 120.0  # importing JAX on a loaded machine
REPLY_TIMEOUT_S = 10.0  # a fork, or the status once the run's processes are killed
PING_TIMEOUT_S = 5.0  # a responsive zygote answers in a millisecond; a stopped one never
MAX_LINE = 4096


def disk_mb(limits: Limits) -> int:
    """Size of each of a run's tmpfs (home, /tmp): the job's disk limit, as in a cold run. Their
    pages are also the run's memory, so the job's memory limit bounds them together."""
    return min(limits.disk_mb, limits.memory_mb)


class ProtocolError(Exception):
    """The zygote answered late, out of step or malformed: it is replaced."""


class Zygote:
    """One warm parent: its bwrap sandbox in a cgroup of its own (the zygote in a "zygote"
    leaf, each run in a "run-…" leaf with the job's limits), and its control socket. Used by
    one thread at a time: runs are sequential."""

    def __init__(self, runner: SandboxRunner, ceiling: Limits,
                 staging: Path | None = None) -> None:
        """``staging``: a compilation-cache warm-up's folder, mounted writable where graded
        runs' parents mount the host's cache read-only (compile_cache.py)."""
        ceiling = ceiling.for_devices(MAX_DEVICES)  # any run's cgroup fits inside the zygote's
        self.runner = runner
        self.staging = staging
        self.home = Path(tempfile.mkdtemp(prefix="warm-", dir=runner.base))
        self.buffer = b""
        self.broken = False
        try:
            self.group = cgroups.create(f"{runner.tag}warm-{uuid.uuid4().hex[:12]}",
                                        memory_bytes=(ceiling.memory_mb + ZYGOTE_MEMORY_MB) * MB,
                                        pids=ceiling.pids + ZYGOTE_PIDS,
                                        root=runner.config.cgroup_root)
        except OSError as exc:
            shutil.rmtree(self.home, ignore_errors=True)
            raise SandboxUnavailable(
                f"the warm runner needs cgroups it can create ({exc}): run the worker as root "
                "or give it a delegated cgroup (PATHWAYS_GRADER_CGROUP_ROOT), or unset "
                "PATHWAYS_GRADER_WARM") from exc
        try:
            self.leaf = self.group.child("zygote", memory_bytes=ZYGOTE_MEMORY_MB * MB,
                                         pids=ZYGOTE_PIDS)
            self.proc, self.control = self._start(self.leaf)
            self.keep = frozenset(self.leaf.pids())
            self.zygote_pid = _leaf_process(self.keep)
        except BaseException:
            self.close()
            raise

    def _start(self, leaf: cgroups.RunCgroup) -> tuple[subprocess.Popen[bytes], socket.socket]:
        runner = self.runner
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)  # framed
        theirs.set_inheritable(True)
        argv = [str(theirs.fileno())]
        if runner.run_uid is not None:
            argv += ["--worker-maps", "--init-uid", str(runner.run_uid - 1)]
        cmd = bwrap.command(python=runner.config.python, workdir=self.home,
                            harness=runner.harness, argv=argv,
                            env=bwrap.sandbox_env(runner.config.platform, runner.run_uid),
                            platform=runner.config.platform, run_uid=runner.run_uid,
                            zygote=ZYGOTE, packages=runner.config.packages,
                            cache=self.staging or runner.cache,
                            cache_writable=self.staging is not None)
        wrapper = ["/bin/sh", "-c", process.WRAPPER, "sh",
                   *[str(p) for p in leaf.procs_files], "--", "prlimit", "--core=0",
                   "--nofile=1024", "--", *cmd]
        proc = subprocess.Popen(wrapper, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, pass_fds=(theirs.fileno(),),
                                start_new_session=True, env={"PATH": "/usr/bin:/bin"})
        theirs.close()
        self.proc, self.control = proc, ours
        deadline = time.monotonic() + START_TIMEOUT_S
        try:
            hello = self._read(deadline)
            if runner.run_uid is not None and set(hello) == {"userns"}:
                self._map_ids(leaf, runner.run_uid)
                ours.sendall(b'{"mapped": true}\n')
                hello = self._read(deadline)
        except (ProtocolError, OSError) as exc:
            raise SandboxUnavailable(f"the warm sandbox did not start: {exc}") from exc
        if hello != {"ready": True}:
            raise SandboxUnavailable(f"the warm sandbox did not start: {hello}")
        return proc, ours

    def _map_ids(self, leaf: cgroups.RunCgroup, uid: int) -> None:
        """Map the program's uid and the init's (uid - 1) into the zygote's user namespace."""
        own = os.readlink("/proc/self/ns/user")
        for pid in leaf.pids():
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/{pid}/ns/user") != own:
                    lines = f"{uid} {uid} 1\n{uid - 1} {uid - 1} 1\n"
                    Path(f"/proc/{pid}/uid_map").write_text(lines)
                    Path(f"/proc/{pid}/gid_map").write_text(lines)
                    return
        raise ProtocolError("no zygote in a user namespace of its own")

    def _read(self, deadline: float) -> dict[str, Any]:
        """One JSON object line from the zygote by ``deadline``; raises ProtocolError."""
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ProtocolError("no reply in time")
            self.control.settimeout(remaining)
            try:
                chunk = self.control.recv(4096)
            except TimeoutError:
                raise ProtocolError("no reply in time") from None
            if not chunk:
                raise ProtocolError("the zygote closed its control socket")
            self.buffer += chunk
            if len(self.buffer) > MAX_LINE:
                raise ProtocolError("reply too long")
        line, _, self.buffer = self.buffer.partition(b"\n")
        try:
            message = json.loads(line)
        except ValueError as exc:
            raise ProtocolError(f"reply is not JSON: {exc}") from None
        if not isinstance(message, dict):
            raise ProtocolError("reply is not an object")
        return message

    def _reply(self, run: str, fields: dict[str, type], deadline: float) -> dict[str, Any]:
        """The next reply, which must be for ``run`` with exactly ``fields`` of their types."""
        message = self._read(deadline)
        if message.get("run") != run or set(message) != {"run", *fields}:
            raise ProtocolError(f"out of step: expected {sorted(fields)} for this run")
        for key, kind in fields.items():
            if type(message[key]) is not kind:
                raise ProtocolError(f"{key} is not {kind.__name__}")
        return message

    def healthy(self) -> bool:
        """Running, no process of the zygote stopped, traced, dead or gone, and it answers."""
        if self.proc.poll() is not None:
            return False
        for pid in self.keep:
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                return False
            if stat.rpartition(")")[2].split()[0] not in ("R", "S", "D"):
                return False
        if self.broken:
            return False
        ping = uuid.uuid4().hex
        try:
            self.control.sendall(json.dumps({"ping": ping}).encode())
            self._reply(ping, {"pong": bool}, time.monotonic() + PING_TIMEOUT_S)
        except (ProtocolError, OSError):
            return False
        return True

    def close(self) -> None:
        """Kill the zygote and everything in its cgroup; remove its files."""
        proc = getattr(self, "proc", None)
        if proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, 9)
        self.group.remove()
        if proc is not None:
            proc.wait()
        if getattr(self, "control", None) is not None:
            self.control.close()
        shutil.rmtree(self.home, ignore_errors=True)

    def run(self, source: str, names: tuple[str, ...], limits: Limits,
            calls: bytes | None = None, devices: int = 1) -> process.RunOutcome:
        """One run; raises ProtocolError (replace the zygote) or SandboxUnavailable.
        ``calls``: a function exercise's hidden inputs (PWC1), copied into the run's home.
        ``devices``: the run's logical CPU devices. The zygote imported JAX but never started a
        backend, and XLA reads XLA_FLAGS when the run's own backend starts, so one zygote
        serves every device count: the forked run sets the flag before the harness runs."""
        out = process.RunOutcome(cgroup_version=self.group.version)
        run_id = uuid.uuid4().hex
        group = self.group.child(f"run-{run_id[:12]}", memory_bytes=limits.memory_mb * MB,
                                 pids=limits.pids)
        pipes = {k: os.pipe() for k in ("stdout", "stderr", "values")}
        go_read, go_write = os.pipe()
        files = [_memfd("main.py", source.encode("utf-8"))]
        if calls is not None:
            files.append(_memfd("calls.bin", calls))
        request = _request(run_id, names, limits, calls is not None, devices)
        start = time.monotonic()
        deadline = start + limits.wall_s
        try:
            self._send(request, group, [w for _, w in pipes.values()] + [go_read, *files])
            os.write(go_write, b"g")
            os.close(go_write)
            go_write = -1
            status: dict[str, Any] = {}
            waiter = threading.Thread(target=self._wait_status,
                                      args=(run_id, group, status, deadline))
            waiter.start()
            process.pump({k: r for k, (r, _) in pipes.items()}, limits, out, deadline,
                         excerpt_bytes=16 * 1024)
            if out.timed_out or out.output_exceeded or out.values_exceeded:
                group.kill_all()
            waiter.join()
            self._conclude(out, status)
        finally:
            if go_write >= 0:
                os.close(go_write)
            for r, _ in pipes.values():
                os.close(r)
            out.oom_killed = group.oom_killed()
            out.peak_memory_bytes = group.peak_memory_bytes()
            measured = group.cpu_seconds()  # the run's cgroup: every process, reaped or not
            if measured is not None:
                out.cpu_s = measured
            group.remove()
            out.wall_s = time.monotonic() - start
        return out

    def _send(self, request: dict[str, Any], group: cgroups.RunCgroup,
               fds: list[int]) -> None:
        """Send the request with its descriptors (closed here) and put the run's setup
        process, which waits for "go", into the run's cgroup."""
        try:
            socket.send_fds(self.control, [json.dumps(request).encode()], fds)
        finally:
            for fd in fds:
                os.close(fd)
        self._reply(request["run"], {"pid": int}, time.monotonic() + REPLY_TIMEOUT_S)
        forked = self.leaf.pids() - self.keep  # the setup process, waiting for "go"
        if len(forked) != 1:
            raise ProtocolError(f"expected one new process, found {len(forked)}")
        setup_pid = forked.pop()
        for procs in group.procs_files:
            procs.write_text(str(setup_pid))

    def _conclude(self, out: process.RunOutcome, status: dict[str, Any]) -> None:
        """``out`` from the zygote's status of the run (``_wait_status``)."""
        if "error" in status:
            if not (out.timed_out or status.get("late")):
                raise status["error"]
            self.broken = True  # a run past its deadline is a timeout; the zygote goes
            out.timed_out = True
            out.returncode = -9
            return
        if not status["started"]:
            raise SandboxUnavailable("the warm run's namespaces could not be set up: "
                                     + out.stderr.decode(errors="replace")[-500:])
        out.timed_out = out.timed_out or status["late"]
        out.returncode = status["status"]
        out.cpu_s = status["cpu_s"]

    def _wait_status(self, run: str, group: cgroups.RunCgroup, status: dict[str, Any],
                     deadline: float) -> None:
        """The run's status by its deadline; past it, kill the run and allow a short grace."""
        fields = {"status": int, "started": bool, "cpu_s": float}
        try:
            try:
                status.update(self._reply(run, fields, deadline), late=False)
            except ProtocolError as exc:
                if time.monotonic() < deadline:
                    raise
                status["late"] = True
                logger.info("warm run past its deadline", extra={"error": str(exc)})
                group.kill_all()
                status.update(self._reply(run, fields, time.monotonic() + REPLY_TIMEOUT_S))
        except ProtocolError as exc:
            status["error"] = exc
        finally:
            group.kill_all()  # what the program left behind: its pipes reach EOF


def _leaf_process(pids: frozenset[int]) -> int:
    """The one process of ``pids`` that is no other's parent: the zygote under bwrap's two."""
    parents = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            status = Path(f"/proc/{pid}/status").read_text()
            parents.add(int(status.split("\nPPid:")[1].split()[0]))
    leaves = pids - parents
    if len(leaves) != 1:
        raise SandboxUnavailable(f"the warm sandbox has an unexpected shape: {sorted(pids)}")
    return next(iter(leaves))


def _memfd(name: str, data: bytes) -> int:
    """An anonymous file holding ``data``, at offset 0 (passed to the zygote)."""
    fd = os.memfd_create(name)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _request(run_id: str, names: tuple[str, ...], limits: Limits, calls: bool,
             devices: int) -> dict[str, Any]:
    """The zygote's request for one run: its names, tmpfs, environment and rlimits."""
    return {"run": run_id, "names": list(names), "tmpfs_mb": disk_mb(limits),
            "calls": calls, "env": device_env(devices), "rlimits": {
                "RLIMIT_CPU": [limits.cpu_s, limits.cpu_s + 1],
                "RLIMIT_FSIZE": [limits.fsize_mb * MB] * 2,
                "RLIMIT_NOFILE": [limits.nofile] * 2, "RLIMIT_CORE": [0, 0],
                "RLIMIT_DATA": [limits.data_mb * MB] * 2}}
