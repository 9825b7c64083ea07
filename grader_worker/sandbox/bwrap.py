"""The bubblewrap command line of one run: what the learner's program can see and do.

Visible inside: the system's /usr (read-only), the interpreter's prefixes (read-only) with every
site-packages replaced by the allow-list of ``site_view`` (numpy, jax and their requirements:
never this project's packages or course content), the harness script (read-only, alone in
/grader), and two writable tmpfs of bounded size: /home/learner (the run directory, holding
only ``main.py``) and /tmp. Nothing else of the host: not course/content, not var/ (database,
queue, keys), not other runs. The run directory exists only in the run's mount namespace, so
it vanishes with the run: the worker never walks what a learner wrote (no rmtree of 100k
directories, no mode-000 residue), and no name of it can be guessed or pre-created.
Namespaces: all unshared (own network namespace: no network; own pid namespace: the tree dies
with bwrap). The worker's environment is cleared; only the variables below are set.

Privileges: when the worker is root, bwrap runs privileged without a user namespace and the
program is started through ``setpriv`` as an unprivileged uid (real uid 65534 on the host, no
capabilities, no_new_privs). Otherwise bwrap makes a user namespace (the worker's own uid).
A seccomp filter (``seccomp.py``, via ``--seccomp``) refuses ptrace, the keyring, mount,
namespaces, bpf, perf and the other calls listed there.
"""

from __future__ import annotations

import glob
import os
import shutil
from pathlib import Path

from course.checks import HARNESS_SIBLINGS
from course.devices import device_env
from course.tools.execute import BLAS_ENV
from grader_worker import compile_cache
from grader_worker.errors import SandboxUnavailable
from grader_worker.sandbox import site_view

WORK = "/home/learner"
GRADER = "/grader"
SYSTEM_RO = ("/usr", "/etc/alternatives", "/etc/ld.so.cache", "/etc/ssl", "/etc/localtime")
TPU_DEVICES = ("/dev/accel*", "/dev/vfio")
SHM_IDLE_BYTES = 1024 * 1024
"""/dev/shm of a sandbox without a disk limit (the warm parent: each run mounts its own)."""


def bwrap_path() -> str:
    path = shutil.which("bwrap")
    if path is None:
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
    return path


def python_roots(python: str, view: site_view.SiteView) -> list[str]:
    """Directories the interpreter needs: its prefix(es) and the venv (resolved, deduplicated).
    Not this worker's own prefix: it may hold the project's packages."""
    roots = {*view.prefixes, os.path.dirname(os.path.dirname(os.path.realpath(python)))}
    venv = Path(python).parent.parent
    if (venv / "pyvenv.cfg").exists():
        roots.add(str(venv.absolute()))
    return sorted(r for r in roots if r not in ("/", "/usr"))


def _parents(path: str) -> list[str]:
    parts = Path(path).parts[1:-1]
    return ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]


def _make_parents(path: str, made: set[str], bound: list[str]) -> list[str]:
    """``--dir`` (0755) for each missing parent of ``path``: bwrap would make them 0700.
    Nothing inside an already bound root (those exist, read-only)."""
    args: list[str] = []
    for parent in _parents(path + "/x"):
        inside = any(parent == b or parent.startswith(b + "/") for b in bound)
        if parent not in made and parent != path and not inside:
            made.add(parent)
            args += ["--perms", "0755", "--dir", parent]
    return args


def site_packages(platform: str, extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The distributions runs may import (their requirements are added)."""
    tpu = site_view.TPU_PACKAGES if platform == "tpu" else ()
    return (*site_view.DEFAULT_PACKAGES, *extra, *tpu)


def command(*, python: str, workdir: Path | None, harness: Path, argv: list[str],
            env: dict[str, str], platform: str, run_uid: int | None, zygote: Path | None = None,
            main_fd: int | None = None, seccomp_fd: int | None = None,
            disk_bytes: int | None = None, packages: tuple[str, ...] = (),
            calls_fd: int | None = None, cache: Path | None = None,
            cache_writable: bool = False) -> list[str]:
    """The full argv: bwrap + (setpriv when root) + python -I harness + args (or, for the warm
    runner, python -I zygote, with the zygote bound next to the harness).

    ``workdir`` None (cold runs): /home/learner is a tmpfs of ``disk_bytes`` holding main.py
    copied from ``main_fd``; else the host ``workdir`` is bound there (the warm runner's home).
    ``seccomp_fd``: a descriptor bwrap reads the filter program from (``seccomp.bpf_program``).
    ``packages``: allowed besides ``site_view.DEFAULT_PACKAGES`` (jax, numpy, optax).
    ``calls_fd``: a function exercise's hidden inputs, copied read-only to /grader/calls.bin.
    ``cache``: the host's JAX compilation cache, bound read-only at ``compile_cache.MOUNT``
    with the settings that read it and never write (``cache_writable``: a warm-up's empty
    staging folder, bound writable there, with the settings that write every compilation).
    """
    view = site_view.probe(python, site_packages(platform, packages))
    cmd = [bwrap_path(), *_namespaces(run_uid, zygote), *_system_binds(),
           *_private_mounts(disk_bytes), *_python_binds(python, view),
           *_home(workdir, main_fd, disk_bytes), *_grader_binds(harness, calls_fd, zygote)]
    if cache is not None:
        cmd += ["--bind" if cache_writable else "--ro-bind", str(cache), compile_cache.MOUNT]
        env = {**env, **(compile_cache.write_env() if cache_writable
                         else compile_cache.read_env())}
    if platform == "tpu":
        for pattern in TPU_DEVICES:
            for dev in glob.glob(pattern):
                cmd += ["--dev-bind", dev, dev]
    # Nothing but the run's tmpfs (home, /tmp, /dev/shm) is writable: with an unprivileged
    # worker bwrap's root tmpfs (/, /grader, /etc's directory) and --dev tmpfs belong to the
    # program's uid, unbounded by disk_mb, and a warm sandbox's would outlive the run.
    cmd += ["--remount-ro", "/dev", "--remount-ro", "/"]
    for key, value in env.items():
        cmd += ["--setenv", key, value]
    if seccomp_fd is not None:
        cmd += ["--seccomp", str(seccomp_fd)]
    if run_uid is not None:
        cmd += [shutil.which("setpriv") or "/usr/bin/setpriv", f"--reuid={run_uid}",
                f"--regid={run_uid}", "--clear-groups", "--inh-caps=-all",
                "--bounding-set=-all", "--no-new-privs", "--"]
    script = f"{GRADER}/zygote.py" if zygote is not None else f"{GRADER}/harness.py"
    return cmd + [python, "-I", script, *argv]


def _namespaces(run_uid: int | None, zygote: Path | None) -> list[str]:
    cmd = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
           "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--clearenv"]
    if run_uid is None:
        # The warm parent makes one user namespace of its own (sandbox/zygote.py); its runs
        # are then refused more by the seccomp filter.
        return cmd + (["--unshare-user"] if zygote is not None
                      else ["--unshare-user", "--disable-userns"])
    return cmd + ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]


def _system_binds() -> list[str]:
    # bwrap would make /etc 0700 (root's) when it creates it for a bind below: unreachable for
    # the learner's uid. Made first, world-readable.
    cmd = ["--perms", "0755", "--dir", "/etc"]
    for path in SYSTEM_RO:
        if os.path.exists(path):
            cmd += ["--ro-bind", path, path]
    for name in ("lib", "lib64", "bin", "sbin"):
        target = os.readlink(f"/{name}") if os.path.islink(f"/{name}") else None
        if target:
            cmd += ["--symlink", target, f"/{name}"]
        elif os.path.isdir(f"/{name}"):
            cmd += ["--ro-bind", f"/{name}", f"/{name}"]
    return cmd


def _private_mounts(disk_bytes: int | None) -> list[str]:
    # The private /tmp comes before the interpreter's binds: a venv that lives under /tmp (a
    # checkout in /tmp, as CI may make) must be bound on top of it, not hidden by it.
    # /proc/1 is bubblewrap's init: with an unprivileged worker it has the program's uid and
    # is dumpable, so its /proc/1/mem would let the program rewrite it. Masked by an empty
    # read-only tmpfs (the program cannot unmount it: the seccomp filter refuses umount).
    # /dev/shm is a tmpfs of its own, bounded like /tmp; /dev itself ends read-only.
    size = ["--size", str(disk_bytes)] if disk_bytes else []
    shm = ["--size", str(disk_bytes or SHM_IDLE_BYTES)]
    return ["--proc", "/proc", "--perms", "0555", "--size", "4096", "--tmpfs", "/proc/1",
            "--remount-ro", "/proc/1", "--dev", "/dev", "--perms", "1777", *shm, "--tmpfs",
            "/dev/shm", "--perms", "1777", *size, "--tmpfs", "/tmp"]


def _python_binds(python: str, view: site_view.SiteView) -> list[str]:
    """The interpreter's roots read-only, site-packages replaced by the allow-list's view."""
    cmd: list[str] = []
    made: set[str] = {"/tmp", "/etc"}
    bound = ["/usr"]
    for root in python_roots(python, view):  # sorted: a root inside another needs no parents
        cmd += _make_parents(root, made, bound)
        cmd += ["--ro-bind", root, root]
        bound.append(root)
    for site in view.hidden_sites(bound):
        cmd += _make_parents(site, made, bound)
    return cmd + view.bwrap_args(bound)


def _home(workdir: Path | None, main_fd: int | None, disk_bytes: int | None) -> list[str]:
    cmd = ["--perms", "0755", "--dir", str(Path(WORK).parent)]
    if workdir is not None:
        return cmd + ["--bind", str(workdir), WORK]
    if main_fd is None:
        raise ValueError("a run without a host workdir needs main_fd (main.py's source)")
    size = ["--size", str(disk_bytes)] if disk_bytes else []
    return cmd + ["--perms", "1777", *size, "--tmpfs", WORK,
                  "--perms", "0444", "--file", str(main_fd), f"{WORK}/main.py"]


def _grader_binds(harness: Path, calls_fd: int | None, zygote: Path | None) -> list[str]:
    cmd = ["--perms", "0755", "--dir", GRADER,
           "--ro-bind", str(harness), f"{GRADER}/harness.py", "--chdir", WORK]
    for name in HARNESS_SIBLINGS:  # loaded by path from beside harness.py
        sibling = harness.with_name(name)
        if sibling.is_file():
            cmd += ["--ro-bind", str(sibling), f"{GRADER}/{name}"]
    if calls_fd is not None:
        cmd += ["--perms", "0444", "--file", str(calls_fd), f"{GRADER}/calls.bin"]
    if zygote is not None:
        cmd += ["--ro-bind", str(zygote), f"{GRADER}/zygote.py",
                "--ro-bind", str(zygote.with_name("seccomp.py")), f"{GRADER}/seccomp.py"]
    return cmd


def is_bwrap(cmd: list[str]) -> bool:
    """Whether ``cmd`` starts bubblewrap (the probe and runs do; a test may run something else)."""
    return bool(cmd) and os.path.basename(cmd[0]) == "bwrap"


def with_status_fd(cmd: list[str], fd: int) -> list[str]:
    """``cmd`` with bwrap's ``--json-status-fd``: bwrap writes the program's ``exit-code`` there
    once the program it started inside the sandbox ends, and nothing of the kind when setting
    up the sandbox fails. The sandboxed program does not inherit the descriptor."""
    return [cmd[0], "--json-status-fd", str(fd), *cmd[1:]]


def sandbox_env(platform: str, run_uid: int | None, devices: int = 1) -> dict[str, str]:
    """The whole environment of a run: nothing of the worker's (no XLA_FLAGS from anyone but
    the exercise: ``devices`` logical CPU devices, ``course.devices``; the compilation cache's
    settings come with its mount, ``command``); numpy's BLAS on one thread whatever the host's
    cores (``BLAS_ENV``)."""
    return {
        **BLAS_ENV,
        **device_env(devices),
        "JAX_PLATFORMS": platform,
        "HOME": WORK,
        "TMPDIR": "/tmp",
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "MPLBACKEND": "Agg",
        "USER": "nobody" if run_uid is not None else "learner",
    }
