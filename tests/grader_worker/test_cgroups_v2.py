"""The cgroup v2 branch of grader_worker.sandbox.cgroups on a real cgroup2 hierarchy.

On a v2 host (/sys/fs/cgroup is cgroup2 with memory and pids) these tests run the whole branch.
On a "hybrid" v1 host, as this project's build VM (memory, pids, cpuacct bound to v1
hierarchies; the unified hierarchy at /sys/fs/cgroup/unified offers only hugetlb, since a
controller lives in one hierarchy at a time), no v2 memory or pids limit can be had: what runs
there is the rest of the branch, for real: the refusal when the parent delegates no controller
(the half-made cgroup removed), a process moved in through ``cgroup.procs``, ``populated`` read
from ``cgroup.events``, CPU time from ``cpu.stat``, and the removal that kills what is left.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader_worker.sandbox import cgroups


def _cgroup2_mount() -> Path | None:
    for line in Path("/proc/self/mounts").read_text().splitlines():
        _, where, kind, *_ = line.split()
        if kind == "cgroup2":
            return Path(where)
    return None


MOUNT = _cgroup2_mount()
pytestmark = pytest.mark.skipif(MOUNT is None or os.geteuid() != 0,
                                reason="needs root and a cgroup2 hierarchy")


@pytest.fixture
def v2(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, set[str]]]:
    """A parent cgroup on the cgroup2 hierarchy, what it can delegate; removed after."""
    assert MOUNT is not None
    monkeypatch.setattr(cgroups, "CGROUP_FS", MOUNT)
    assert cgroups._is_v2()
    rel = f"pathways-v2-test-{secrets.token_hex(4)}"
    parent = MOUNT / rel
    try:
        parent.mkdir()
    except OSError as exc:  # e.g. a container's read-only /sys/fs/cgroup
        pytest.skip(f"cannot make a cgroup on {MOUNT}: {exc}")
    available = set((MOUNT / "cgroup.controllers").read_text().split())
    wanted = {"memory", "pids"} & available
    if wanted:
        (MOUNT / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in wanted))
        (parent / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in wanted))
    yield "/" + rel, available
    for d in sorted(parent.glob("**/"), key=lambda p: len(p.parts), reverse=True):
        cgroups.RunCgroup(dirs=[d], procs_files=[d / "cgroup.procs"]).kill_all()
        d.rmdir()


def test_create_sets_the_limits_or_refuses_and_leaves_nothing(v2: tuple[str, set[str]]) -> None:
    root, available = v2
    base = MOUNT / root.lstrip("/")  # type: ignore[operator]
    if {"memory", "pids"} <= available:
        group = cgroups.create("run-a", memory_bytes=64 << 20, pids=16, root=root)
        assert group.version == 2 and group.dirs == [base / "run-a"]
        assert (base / "run-a" / "memory.max").read_text().strip() == str(64 << 20)
        assert (base / "run-a" / "pids.max").read_text().strip() == "16"
        assert group.remove()
    else:  # this host: the parent can delegate no memory controller
        with pytest.raises(OSError):
            cgroups.create("run-a", memory_bytes=64 << 20, pids=16, root=root)
        assert not (base / "run-a").exists(), "the half-made cgroup is removed"
        assert cgroups.unavailable("pathways-probe", root=root) is not None
    assert [p for p in base.iterdir() if p.is_dir()] == []


def test_a_run_is_moved_in_accounted_and_killed_on_removal(v2: tuple[str, set[str]]) -> None:
    root, _ = v2
    d = MOUNT / root.lstrip("/") / "run-b"  # type: ignore[operator]
    d.mkdir()
    group = cgroups.RunCgroup(dirs=[d], procs_files=[d / "cgroup.procs"],
                              cpu_file=d / "cpu.stat", version=2)
    assert not group.populated()
    # The child is moved in before it does any work (a run's process joins before it runs the
    # program), then burns some CPU and waits. Not a preexec_fn: that forks this process,
    # which has JAX initialised (JAX warns of a deadlock, and a fork may take one).
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nsys.stdin.readline()\n"
         "t = time.process_time()\n"
         "while time.process_time() - t < 0.2: pass\nprint('busy', flush=True)\n"
         "time.sleep(600)"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        (d / "cgroup.procs").write_text(str(proc.pid))
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
        assert proc.stdout is not None and proc.stdout.readline() == "busy\n"
        assert group.pids() == {proc.pid}
        assert group.populated()  # cgroup.events: populated 1
        cpu = group.cpu_seconds()
        assert cpu is not None and cpu >= 0.15, cpu
        assert group.remove(wait_s=10), "killed, emptied and removed"
        assert proc.wait(timeout=10) == -9
        assert not d.exists() and not group.populated()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        assert proc.stdout is not None and proc.stdin is not None
        proc.stdout.close()
        proc.stdin.close()
