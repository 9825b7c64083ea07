"""The bubblewrap command line of one run: what the learner's program can see and do.

Visible inside: the system's /usr (read-only), the Python prefix and the virtual environment
(read-only), the harness script (read-only, alone in /grader), and the run's private directory
(/home/learner, writable, the only writable place besides a private /tmp). Nothing else of the host:
not course/content (hidden checks, solutions), not var/ (database, queue, keys), not other runs.
Namespaces: all unshared (own network namespace: no network; own pid namespace: the tree dies
with bwrap). The worker's environment is cleared; only the variables below are set.

Privileges: when the worker is root, bwrap runs privileged without a user namespace and the
program is started through ``setpriv`` as an unprivileged uid (real uid 65534 on the host, no
capabilities, no_new_privs). Otherwise bwrap makes a user namespace (the worker's own uid).
No seccomp filter is loaded (no compiler for BPF here); the namespaces, the read-only view, the
unprivileged uid and no_new_privs are the boundary.
"""

from __future__ import annotations

import glob
import os
import shutil
import sys
from pathlib import Path

from grader_worker.errors import SandboxUnavailable

WORK = "/home/learner"
GRADER = "/grader"
SYSTEM_RO = ("/usr", "/etc/alternatives", "/etc/ld.so.cache", "/etc/ssl", "/etc/localtime")
TPU_DEVICES = ("/dev/accel*", "/dev/vfio")


def bwrap_path() -> str:
    path = shutil.which("bwrap")
    if path is None:
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
    return path


def python_roots(python: str) -> list[str]:
    """Directories the interpreter needs: its prefix(es) and the venv (resolved, deduplicated)."""
    roots = {os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix),
             os.path.dirname(os.path.dirname(os.path.realpath(python)))}
    venv = Path(python).parent.parent
    if (venv / "pyvenv.cfg").exists():
        roots.add(str(venv.absolute()))
    return sorted(r for r in roots if r not in ("/", "/usr"))


def _parents(path: str) -> list[str]:
    parts = Path(path).parts[1:-1]
    return ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]


def command(*, python: str, workdir: Path, harness: Path, argv: list[str], env: dict[str, str],
            platform: str, run_uid: int | None, zygote: Path | None = None) -> list[str]:
    """The full argv: bwrap + (setpriv when root) + python -I harness + args (or, for the warm
    runner, python -I zygote, with the zygote bound next to the harness)."""
    cmd = [bwrap_path(), "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
           "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--clearenv"]
    if run_uid is None:
        # The warm parent makes one user namespace of its own (sandbox/zygote.py); its runs
        # are then refused more by the seccomp filter.
        cmd += ["--unshare-user"] if zygote is not None else ["--unshare-user", "--disable-userns"]
    else:
        cmd += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    for path in SYSTEM_RO:
        if os.path.exists(path):
            cmd += ["--ro-bind", path, path]
    for name in ("lib", "lib64", "bin", "sbin"):
        target = os.readlink(f"/{name}") if os.path.islink(f"/{name}") else None
        if target:
            cmd += ["--symlink", target, f"/{name}"]
        elif os.path.isdir(f"/{name}"):
            cmd += ["--ro-bind", f"/{name}", f"/{name}"]
    # The private /tmp comes before the interpreter's binds: a venv that lives under /tmp (a
    # checkout in /tmp, as CI may make) must be bound on top of it, not hidden by it.
    cmd += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--tmpfs", "/tmp"]
    made: set[str] = {"/tmp"}
    for root in python_roots(python):
        for parent in _parents(root + "/x"):
            if parent not in made and parent != root:
                made.add(parent)
                cmd += ["--perms", "0755", "--dir", parent]
        cmd += ["--ro-bind", root, root]
    cmd += ["--perms", "0755", "--dir", str(Path(WORK).parent),
            "--bind", str(workdir), WORK, "--perms", "0755", "--dir", GRADER,
            "--ro-bind", str(harness), f"{GRADER}/harness.py", "--chdir", WORK]
    if zygote is not None:
        cmd += ["--ro-bind", str(zygote), f"{GRADER}/zygote.py",
                "--ro-bind", str(zygote.with_name("seccomp.py")), f"{GRADER}/seccomp.py"]
    if platform == "tpu":
        for pattern in TPU_DEVICES:
            for dev in glob.glob(pattern):
                cmd += ["--dev-bind", dev, dev]
    for key, value in env.items():
        cmd += ["--setenv", key, value]
    if run_uid is not None:
        cmd += [shutil.which("setpriv") or "/usr/bin/setpriv", f"--reuid={run_uid}",
                f"--regid={run_uid}", "--clear-groups", "--inh-caps=-all",
                "--bounding-set=-all", "--no-new-privs", "--"]
    script = f"{GRADER}/zygote.py" if zygote is not None else f"{GRADER}/harness.py"
    return cmd + [python, "-I", script, *argv]


def sandbox_env(platform: str, run_uid: int | None) -> dict[str, str]:
    """The whole environment of a run: nothing of the worker's (no XLA_FLAGS from anyone)."""
    return {
        "JAX_PLATFORMS": platform,
        "HOME": WORK,
        "TMPDIR": "/tmp",
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "MPLBACKEND": "Agg",
        "USER": "nobody" if run_uid is not None else "learner",
    }
