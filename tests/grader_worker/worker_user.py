"""The unprivileged worker as deployed (``User=pathways``, systemd's ``Delegate=yes``), for the
tests that run the grader as that user: a system user, a delegated cgroup subtree, and the
command line that starts a program as the user without capabilities (as systemd does)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from grader_worker.sandbox import cgroups


def _run(argv: list[Any]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, check=False)
    assert done.returncode == 0, (argv, done.stdout[-2000:], done.stderr[-4000:])
    return done


def make_worker_user() -> Iterator[tuple[int, int]]:
    """A system user for the worker (uid, gid), deleted after; a generator for fixtures."""
    name = f"pw-test-{uuid.uuid4().hex[:8]}"
    _run(["useradd", "--system", "--no-create-home", "--user-group", "--shell",
          "/usr/sbin/nologin", name])
    try:
        ids = _run(["id", "-u", name]).stdout.strip(), _run(["id", "-g", name]).stdout.strip()
        yield int(ids[0]), int(ids[1])
    finally:
        subprocess.run(["userdel", name], check=False, capture_output=True)


def delegate_cgroups(uid: int, gid: int) -> tuple[str, list[Path]]:
    """A cgroup subtree the worker user may create run cgroups in (systemd's Delegate=yes):
    the relative path and the directories made here (removed after, deepest first)."""
    own = cgroups._own_paths()
    controllers = [""] if cgroups._is_v2() else ["memory", "pids"]
    rel = (own.get(controllers[0], "/").rstrip("/") + f"/pathways-deleg-{uuid.uuid4().hex[:8]}")
    made: list[Path] = []
    for controller in controllers:
        d = cgroups.CGROUP_FS / controller / rel.lstrip("/")
        missing = [p for p in [*reversed(d.parents), d] if not p.exists()]
        d.mkdir(parents=True)
        made += missing
        for path in [d, *d.iterdir()]:
            if path.name in (d.name, "cgroup.procs", "tasks", "cgroup.subtree_control"):
                os.chown(path, uid, gid)
        if controller == "":
            with contextlib.suppress(OSError):
                (d.parent / "cgroup.subtree_control").write_text("+memory +pids")
    return rel, made


def untraversable(path: Path) -> list[tuple[Path, str]]:
    """(ancestor, child) pairs on ``path`` that others cannot pass (e.g. /root 0700)."""
    found = []
    for parent in reversed(path.parents):
        if parent != Path("/") and not parent.stat().st_mode & 0o001:
            found.append((parent, path.relative_to(parent).parts[0]))
    return found


def as_user(uid: int, gid: int, deploy_dir: Path, argv: list[Any]) -> list[str]:
    """``argv`` as ``uid`` without capabilities and with no_new_privs (as systemd starts the
    worker), in a private mount namespace where directories others cannot pass on the way to
    the interpreter (a pyenv under /root) are made passable: the host is left unchanged."""
    script = ["set -e"]
    for i, (ancestor, child) in enumerate(untraversable(Path(sys.base_prefix).resolve())):
        keep = deploy_dir / f"keep-{i}"
        keep.mkdir(exist_ok=True)
        script += [f"mount --bind {ancestor / child} {keep}",
                   f"mount -t tmpfs -o mode=0711,size=1m pathways-test {ancestor}",
                   f"mkdir {ancestor / child}", f"mount --move {keep} {ancestor / child}"]
    script.append(f'exec setpriv --reuid={uid} --regid={gid} --clear-groups --inh-caps=-all '
                  '--bounding-set=-all --no-new-privs -- "$@"')
    return ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
            "\n".join(script), "sh", *[str(a) for a in argv]]


def processes_of(uid: int) -> list[int]:
    """Live processes of ``uid`` (a zombie runs nothing: its parent, maybe the host's init,
    reaps it in its own time)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                state = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[0]
                if entry.stat().st_uid == uid and state != "Z":
                    pids.append(int(entry.name))
    return pids


def describe(pid: int) -> str:
    """State, command line and cgroups of ``pid``, for a failure message."""
    with contextlib.suppress(OSError):
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        cgroup = Path(f"/proc/{pid}/cgroup").read_text().replace("\n", " ")
        return f"{state} {cmd[:200]} {cgroup[:300]}"
    return "gone"


def userns_refused(uid: int, gid: int, deploy_dir: Path) -> str:
    """Why this host gives the user no user namespace ("" when it does)."""
    done = subprocess.run(as_user(uid, gid, deploy_dir, ["bwrap", "--unshare-user", "--ro-bind",
                                                         "/", "/", "true"]),
                          capture_output=True, text=True, check=False)
    return "" if done.returncode == 0 else done.stderr or "bwrap failed"


def clean_up(uid: int, made: list[Path]) -> None:
    """Kill the user's processes and remove the delegated cgroups, deepest first."""
    for pid in processes_of(uid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, 9)
    for d in reversed(made):
        for child in sorted(d.glob("*/"), reverse=True):
            with contextlib.suppress(OSError):
                child.rmdir()
        with contextlib.suppress(OSError):
            d.rmdir()
