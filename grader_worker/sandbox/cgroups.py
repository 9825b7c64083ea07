"""A cgroup per run: memory limit (its oom_kill counter tells "memory limit" apart) and a pids
limit (a fork bomb stops there; RLIMIT_NPROC would count every process of the uid instead).

Supports cgroup v1 (separate memory and pids hierarchies, as on this host) and v2 (one unified
hierarchy). Runs go under the worker's own cgroup, so a container's delegation is respected.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

logger = logging.getLogger(__name__)

CGROUP_FS = Path("/sys/fs/cgroup")
REMOVE_WAIT_S = 10.0
"""How long a run's end waits for its cgroup to empty: the last process of a run leaves it
only once its mount namespace (a tmpfs of 300k inodes: seconds) is torn down. Past it the
reaper takes over."""
REAP_EVERY_S = 1.0


def _own_paths() -> dict[str, str]:
    """controller -> path of this process's cgroup ("" key: the v2 unified hierarchy)."""
    paths: dict[str, str] = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for name in controllers.split(",") if controllers else [""]:
            paths[name] = path
    return paths


def _is_v2() -> bool:
    return (CGROUP_FS / "cgroup.controllers").exists()


@dataclass
class RunCgroup:
    """The cgroup(s) of one run. ``procs_files`` get the child's pid before it execs."""

    dirs: list[Path] = field(default_factory=list)
    procs_files: list[Path] = field(default_factory=list)
    oom_file: Path | None = None
    cpu_file: Path | None = None
    """v1 cpuacct.usage (nanoseconds) or v2 cpu.stat (usage_usec): the run's CPU time."""
    version: int = 0

    def cpu_seconds(self) -> float | None:
        """CPU time used by every process that was in the run's cgroup (None: not accounted)."""
        if self.cpu_file is None:
            return None
        with contextlib.suppress(OSError, ValueError):
            text = self.cpu_file.read_text()
            if self.cpu_file.name == "cpuacct.usage":
                return int(text) / 1e9
            for line in text.splitlines():
                key, _, value = line.partition(" ")
                if key == "usage_usec":
                    return int(value) / 1e6
        return None

    def oom_kills(self) -> int:
        """The cgroup's oom_kill counter (v1 memory.oom_control, v2 memory.events)."""
        if self.oom_file is None:
            return 0
        with contextlib.suppress(OSError, ValueError):
            for line in self.oom_file.read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        return 0

    def oom_killed(self) -> bool:
        """Whether the kernel OOM-killed something in this run (the memory limit was hit)."""
        return self.oom_kills() > 0

    def peak_memory_bytes(self) -> int | None:
        """The most memory the run's processes held at once (v1 ``memory.max_usage_in_bytes``,
        v2 ``memory.peak``; None on a kernel without it)."""
        if self.oom_file is None:
            return None
        name = ("memory.peak" if self.oom_file.name == "memory.events"
                else "memory.max_usage_in_bytes")
        with contextlib.suppress(OSError, ValueError):
            return int((self.oom_file.parent / name).read_text())
        return None

    def pids(self) -> set[int]:
        found: set[int] = set()
        for procs in self.procs_files:
            with contextlib.suppress(OSError):
                found.update(int(p) for p in procs.read_text().split())
        return found

    def kill_all(self, keep: frozenset[int] = frozenset()) -> None:
        """SIGKILL every process in the cgroups but ``keep`` (what escaped the session)."""
        for pid in self.pids() - keep:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, 9)

    def child(self, name: str, *, memory_bytes: int, pids: int) -> RunCgroup:
        """A cgroup inside this one (v1: in each hierarchy) with its own, lower limits."""
        group = RunCgroup(oom_file=None, version=self.version)
        try:
            for parent in self.dirs:
                if self.version == 2:  # v2: only a cgroup without processes delegates controllers
                    (parent / "cgroup.subtree_control").write_text("+memory +pids")
                d = parent / name
                d.mkdir()
                group.dirs.append(d)
                group.procs_files.append(d / "cgroup.procs")
                if (d / "memory.limit_in_bytes").exists():
                    (d / "memory.limit_in_bytes").write_text(str(memory_bytes))
                    with contextlib.suppress(OSError):
                        (d / "memory.memsw.limit_in_bytes").write_text(str(memory_bytes))
                    group.oom_file = d / "memory.oom_control"
                if (d / "memory.max").exists():
                    (d / "memory.max").write_text(str(memory_bytes))
                    with contextlib.suppress(OSError):
                        (d / "memory.swap.max").write_text("0")
                    group.oom_file = d / "memory.events"
                if (d / "pids.max").exists():
                    (d / "pids.max").write_text(str(pids))
                if (d / "cpuacct.usage").exists():
                    group.cpu_file = d / "cpuacct.usage"
                elif (d / "cpu.stat").exists() and group.cpu_file is None:
                    group.cpu_file = d / "cpu.stat"
        except OSError:
            group.remove()
            raise
        return group

    def populated(self) -> bool:
        """Whether a process (or a child cgroup) is still in it: v2's ``cgroup.events``
        ``populated``; v1 has no such file in every hierarchy, so its ``cgroup.procs`` and
        child directories are read."""
        for d in self.dirs:
            if not d.exists():
                continue
            events = d / "cgroup.events"
            with contextlib.suppress(OSError):
                if events.exists():
                    if "populated 1" in events.read_text():
                        return True
                    continue
                if (d / "cgroup.procs").read_text().split() or \
                        any(p.is_dir() for p in d.iterdir()):
                    return True
        return False

    def try_remove(self) -> bool:
        """One pass: kill what is left, remove what is empty (children first); True when
        every directory is gone."""
        for d in self.dirs:
            for sub in [p for p in d.iterdir() if p.is_dir()] if d.exists() else []:
                RunCgroup(dirs=[sub], procs_files=[sub / "cgroup.procs"]).try_remove()
        self.kill_all()
        for d in self.dirs:
            if d.exists() and not RunCgroup(dirs=[d]).populated():
                with contextlib.suppress(OSError):
                    d.rmdir()
        return not any(d.exists() for d in self.dirs)

    def remove(self, wait_s: float = REMOVE_WAIT_S) -> bool:
        """Kill everything in it and remove it once it is empty (``populated 0``), waiting up
        to ``wait_s``; past that the reaper retries until it is gone (never abandoned: a
        cgroup left behind is a limit's slot lost, and their pile made runs fail to get one).
        Returns whether it is gone now."""
        deadline = time.monotonic() + wait_s
        while not self.try_remove():
            if time.monotonic() >= deadline:
                REAPER.add(self)
                return False
            time.sleep(0.05)
        return True


class Reaper:
    """Removes, in the background, the run cgroups that did not empty in time (one daemon
    thread a process, started on first use); retries each until it is gone."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._groups: list[RunCgroup] = []
        self._thread: threading.Thread | None = None
        self.removed = 0

    def add(self, group: RunCgroup) -> None:
        logger.warning("cgroup not empty yet; the reaper will remove it",
                       extra={"dirs": [str(d) for d in group.dirs]})
        with self._lock:
            self._groups.append(group)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="cgroup-reaper",
                                                daemon=True)
                self._thread.start()

    def pending(self) -> list[RunCgroup]:
        with self._lock:
            return list(self._groups)

    def reap_once(self) -> int:
        """One pass over the pending cgroups; returns how many are still pending."""
        for group in self.pending():
            gone = False
            with contextlib.suppress(OSError):
                gone = group.try_remove()
            if gone:
                with self._lock:
                    self._groups.remove(group)
                    self.removed += 1
        return len(self.pending())

    def _loop(self) -> None:
        while True:
            self.reap_once()
            with self._lock:
                if not self._groups:  # checked and ended under the lock add() takes
                    self._thread = None
                    return
            time.sleep(REAP_EVERY_S)


REAPER = Reaper()


def create(name: str, *, memory_bytes: int, pids: int, root: str | None = None) -> RunCgroup:
    """Make the run's cgroup(s); raises OSError when this host gives no cgroup access."""
    own = _own_paths()
    group = RunCgroup()
    if _is_v2():
        base = CGROUP_FS / (root or own.get("", "/")).lstrip("/")
        d = base / name
        d.mkdir()
        group.dirs.append(d)
        try:  # a controller the parent does not delegate: remove the half-made cgroup
            (d / "memory.max").write_text(str(memory_bytes))
            with contextlib.suppress(OSError):
                (d / "memory.swap.max").write_text("0")
            (d / "pids.max").write_text(str(pids))
        except OSError:
            group.remove()
            raise
        group.procs_files.append(d / "cgroup.procs")
        group.oom_file = d / "memory.events"
        group.cpu_file = d / "cpu.stat"
        group.version = 2
        return group
    try:
        mem = CGROUP_FS / "memory" / (root or own.get("memory", "/")).lstrip("/") / name
        mem.mkdir()
        group.dirs.append(mem)
        (mem / "memory.limit_in_bytes").write_text(str(memory_bytes))
        with contextlib.suppress(OSError):  # no swap accounting on some kernels
            (mem / "memory.memsw.limit_in_bytes").write_text(str(memory_bytes))
        with contextlib.suppress(OSError):
            (mem / "memory.swappiness").write_text("0")
        pid_dir = CGROUP_FS / "pids" / (root or own.get("pids", "/")).lstrip("/") / name
        pid_dir.mkdir()
        group.dirs.append(pid_dir)
        (pid_dir / "pids.max").write_text(str(pids))
    except OSError:
        group.remove()
        raise
    group.procs_files += [mem / "cgroup.procs", pid_dir / "cgroup.procs"]
    group.oom_file = mem / "memory.oom_control"
    with contextlib.suppress(OSError):  # CPU accounting is optional: it only names a timeout
        cpu_dir = CGROUP_FS / "cpuacct" / (root or own.get("cpuacct", "/")).lstrip("/") / name
        cpu_dir.mkdir()
        group.dirs.append(cpu_dir)
        group.procs_files.append(cpu_dir / "cgroup.procs")
        group.cpu_file = cpu_dir / "cpuacct.usage"
    group.version = 1
    return group


def unavailable(prefix: str, root: str | None = None) -> str | None:
    """Why this host gives runs no cgroup (memory and pids limits), or None when it does: one
    cgroup is made under ``root`` and removed, as a run's would be."""
    try:
        create(f"{prefix}probe", memory_bytes=64 * 1024 * 1024, pids=8, root=root).remove()
    except OSError as exc:
        return f"{type(exc).__name__}: {exc.strerror or exc}"
    return None


def _bases(root: str | None) -> list[Path]:
    """The parent directories runs' cgroups are made in (as ``create`` makes them)."""
    own = _own_paths()
    if _is_v2():
        return [CGROUP_FS / (root or own.get("", "/")).lstrip("/")]
    return [CGROUP_FS / controller / (root or own.get(controller, "/")).lstrip("/")
            for controller in ("memory", "pids", "cpuacct")]


def sweep(stale: Callable[[str], bool], *, root: str | None = None) -> list[Path]:
    """Kill the processes in, and remove, every run cgroup whose name ``stale`` accepts (left
    by a worker that was SIGKILLed); returns the directories removed."""
    removed: list[Path] = []
    for base in dict.fromkeys([*_bases(root), *_bases(None)]):  # runs, and the probe
        with contextlib.suppress(OSError):
            for d in base.iterdir():
                if d.is_dir() and stale(d.name):
                    group = RunCgroup(dirs=[d], procs_files=[d / "cgroup.procs"])
                    group.remove()
                    if not d.exists():
                        removed.append(d)
    return removed
