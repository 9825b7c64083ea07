"""Issue 21, findings 2, 6 and 8: a run can write only its own bounded tmpfs (home, /tmp,
/dev/shm), nothing it writes reaches the next run (another learner), and bubblewrap's pid 1 is
out of its reach; as root and as an unprivileged worker (``User=pathways``), cold and warm.

With an unprivileged worker the run's uid owned bwrap's root tmpfs and its ``--dev`` tmpfs:
warm runs shared ``/dev/shm``, ``/`` and ``/grader`` (a learner's hidden inputs, a
``sitecustomize.py`` and 600 MB of files reached later runs, charged to the warm cgroup), and
cold runs could fill them past ``disk_mb``. ``/proc/1/mem`` let the program write bwrap's pid 1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from grader_helpers import HERE
from worker_user import (
    as_user,
    clean_up,
    delegate_cgroups,
    describe,
    make_worker_user,
    processes_of,
    userns_refused,
)

ROOT = HERE.parents[1]
DRIVER = HERE / "sequence_driver.py"
SEALED = HERE / "sealed"
MODES = ["root-cold", "root-warm", "user-cold", "user-warm"]
MB = 1024 * 1024


@pytest.fixture(scope="module")
def base() -> Iterator[Path]:
    """A directory the worker user can reach (its var/ and the test's copies), removed after."""
    d = Path(tempfile.mkdtemp(prefix="pathways-sealed-", dir="/tmp"))
    d.chmod(0o755)
    yield d
    subprocess.run(["rm", "-rf", str(d)], check=False)


@pytest.fixture(scope="module")
def unprivileged(base: Path) -> Iterator[dict[str, Any]]:
    """The worker user with a delegated cgroup subtree, as systemd gives ``User=pathways``."""
    if os.geteuid() != 0:
        pytest.skip("making a worker user needs root")
    users = make_worker_user()
    uid, gid = next(users)
    made: list[Path] = []
    try:
        refused = userns_refused(uid, gid, base)
        if refused:
            pytest.skip(f"this host gives an unprivileged user no user namespace: {refused}")
        rel, made = delegate_cgroups(uid, gid)
        var = base / f"var-{uid}"
        var.mkdir()
        os.chown(var, uid, gid)
        yield {"uid": uid, "gid": gid, "cgroup_root": rel, "var": var, "made": made}
    finally:
        clean_up(uid, made)
        next(users, None)


def run_as_worker(mode: str, programs: list[Path], base: Path,
                  unprivileged: dict[str, Any] | None, *extra: str) -> dict[str, Any]:
    """``sequence_driver.py`` as the worker of ``mode`` would run the programs: its report."""
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "JAX_PLATFORMS": "cpu",
           "PATHWAYS_GRADING_KEY": "sealed-runs-test-key-" + "k" * 32,
           "PATHWAYS_GRADER_WARM": "1" if mode.endswith("warm") else "0", "HOME": str(base)}
    argv: list[Any] = [sys.executable, "-s", DRIVER, *programs, *extra]
    if mode.startswith("user"):
        assert unprivileged is not None
        env.update(PATHWAYS_VAR_DIR=str(unprivileged["var"]), TMPDIR=str(unprivileged["var"]),
                   PATHWAYS_GRADER_CGROUP_ROOT=unprivileged["cgroup_root"])
        argv = as_user(unprivileged["uid"], unprivileged["gid"], base, argv)
    else:
        env["PATHWAYS_VAR_DIR"] = str(base / "var-root")
    done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, check=False,
                          env=env, cwd=ROOT, timeout=600)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-4000:])
    report = json.loads(done.stdout.strip().splitlines()[-1])
    if mode.startswith("user"):
        assert report["uid"] == unprivileged["uid"]
        left = {pid: describe(pid) for pid in processes_of(unprivileged["uid"])}
        assert not left, left
    return report


def _mode(request: pytest.FixtureRequest, mode: str) -> dict[str, Any] | None:
    return request.getfixturevalue("unprivileged") if mode.startswith("user") else None


@pytest.mark.parametrize("mode", MODES)
def test_a_run_writes_only_its_own_bounded_tmpfs_and_the_next_learner_finds_nothing(
        request: pytest.FixtureRequest, base: Path, mode: str) -> None:
    look, write = SEALED / "look_for_traces.py", SEALED / "write_everywhere.py"
    report = run_as_worker(mode, [look, write, look, look], base, _mode(request, mode))
    runs = report["runs"]
    assert [r["returncode"] for r in runs] == [0, 0, 0, 0], [r["stderr"] for r in runs]
    wrote = json.loads(runs[1]["stdout"])["wrote"]
    writable = {place for place, how in wrote.items() if how == "written"}
    assert writable == {"/dev/shm", "/tmp", "/home/learner"}, wrote
    for place in ("/", "/grader", "/dev", "/etc", "/home"):
        assert wrote[place] == "Read-only file system", (place, wrote)
    assert wrote["/dev/shm/big"] == "No space left on device" and wrote["shm_mb"] <= 64, wrote
    for later in runs[2:]:
        assert json.loads(later["stdout"]) == {"found": [], "poison": ""}, later["stdout"]
    if mode.endswith("warm"):
        # /dev/shm, /tmp and home of the writer went with its mount namespace: the warm
        # cgroup holds no more than after the first (reading) run, give or take the zygote's
        # own pages.
        before, after = runs[0]["warm_memory"], runs[3]["warm_memory"]
        assert before and after and after - before < 24 * MB, (before, after)
        assert runs[1]["warm_memory"] - before < 24 * MB, runs[1]["warm_memory"]


@pytest.mark.parametrize("mode", MODES)
def test_bubblewraps_pid_1_is_out_of_the_programs_reach(
        request: pytest.FixtureRequest, base: Path, mode: str) -> None:
    """/proc/1 is bwrap's init (the warm sandbox's too): with an unprivileged worker it has
    the program's uid and is dumpable, so /proc/1/mem was writable. It is masked."""
    report = run_as_worker(mode, [SEALED / "write_everywhere.py"], base, _mode(request, mode))
    proc1 = json.loads(report["runs"][0]["stdout"])["proc1"]
    assert not [k for k, v in proc1.items() if v == "opened"], proc1
