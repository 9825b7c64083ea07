"""The hostile corpus as deployed: the project installed from a wheel (as the Dockerfiles do),
the worker as root and as an unprivileged user (``User=pathways`` in deploy/systemd).

The editable install of the other tests hides two things a deployment has: the course content,
hidden checks and solutions included, lies in site-packages next to jax; and the worker, not
root, shares its uid with the learner's program. Each variant runs ``corpus_driver.py`` in its
own interpreter and process and checks its report like test_hostile does.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import site
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from grader_helpers import (
    CANARY,
    CORPUS,
    CORPUS_LIMITS,
    FIXTURE_CHECKS,
    GOOD,
    HERE,
    TRUSTED_CPU_S,
    assert_clear_failure,
    make_job,
)

from course.checks import HARNESS_PATH
from grader_worker.config import load_config
from grader_worker.grading import grade
from grader_worker.runner import SandboxRunner
from grader_worker.sandbox import cgroups

ROOT = HERE.parents[1]
# What deploy/docker/grader-*.Dockerfile copy before `pip install --no-deps .`.
SOURCES = ("pyproject.toml", "README.md", "pathways", "course", "grader_worker")
TRUSTED_RSS_MB = 512


def _run(argv: list[Any], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, check=False,
                          **kwargs)
    assert done.returncode == 0, (argv, done.stdout[-2000:], done.stderr[-4000:])
    return done


@pytest.fixture(scope="module")
def deploy_dir() -> Iterator[Path]:
    """A world-readable directory (an unprivileged worker must reach it), removed after."""
    base = Path(tempfile.mkdtemp(prefix="pathways-deploy-", dir="/tmp"))
    base.chmod(0o755)
    yield base
    subprocess.run(["rm", "-rf", str(base)], check=False)


@pytest.fixture(scope="module")
def wheel_python(deploy_dir: Path) -> Path:
    """The project as a real wheel, installed by pip into a fresh venv whose dependencies
    (jax, numpy, ...) come from this venv's site-packages: nothing is downloaded."""
    src = deploy_dir / "src"
    src.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(ROOT / name, src / name)
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
          "--no-index", "-w", deploy_dir / "dist", src])
    [wheel] = (deploy_dir / "dist").glob("jax_pathways-*.whl")
    venv = deploy_dir / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv])
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps",
          "--no-index", wheel])
    [purelib] = (venv / "lib").glob("python*/site-packages")
    (purelib / "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    # The premise: hidden checks and solutions are in the installed environment.
    assert list(purelib.glob("course/content/**/exercises/*/solution.py"))
    assert list(purelib.glob("course/content/**/exercises/*/checks.py"))
    return python


@pytest.fixture(scope="module")
def secret_dir_shared(deploy_dir: Path) -> Path:
    """The service's var/ stand-in, readable by the unprivileged worker too (a stronger test:
    only the sandbox stands between the program and it)."""
    d = deploy_dir / "var-secret"
    (d / "keys").mkdir(parents=True)
    (d / "keys" / "tool-private.pem").write_text(f"-----BEGIN PRIVATE KEY-----\n{CANARY}\n")
    (d / "pathways.sqlite3").write_text(CANARY)
    for p in (d, d / "keys"):
        p.chmod(0o755)
    return d


def _driver_env(deploy_dir: Path, **extra: str) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "HOME": str(deploy_dir), "LANG": "C.UTF-8",
            "JAX_PLATFORMS": "cpu", "PATHWAYS_VAR_DIR": str(deploy_dir / "var"), **extra}


def _report(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    return json.loads(done.stdout.strip().splitlines()[-1])


def _check_report(report: dict[str, Any], python: Path) -> None:
    assert report["grader_worker"].startswith(str(python.parent.parent)), report["grader_worker"]
    failures = []
    for path in CORPUS:
        try:
            assert_clear_failure(path, SimpleNamespace(**report["results"][path.name]))
        except AssertionError as exc:
            failures.append(str(exc)[:600])
    assert not failures, "\n".join(failures)
    good = report["good"]
    assert (good["outcome"], good["score"]) == ("graded", 3.0), good["feedback"]
    spent = {k: round(v["trusted_cpu_s"], 2) for k, v in report["results"].items()}
    assert max(spent.values()) < TRUSTED_CPU_S, spent
    assert report["maxrss_mb"] < TRUSTED_RSS_MB
    assert report["left_in_base"] == [] and report["base_removed"]


@pytest.mark.slow
def test_corpus_against_a_wheel_install(wheel_python: Path, deploy_dir: Path,
                                        secret_dir_shared: Path) -> None:
    done = _run([wheel_python, "-E", "-s", HERE / "corpus_driver.py", secret_dir_shared],
                cwd=deploy_dir, env=_driver_env(deploy_dir), timeout=900)
    report = _report(done)
    assert report["uid"] == 0 and report["run_uid"] == 65534
    _check_report(report, wheel_python)


# --- the unprivileged worker -------------------------------------------------------------


@pytest.fixture(scope="module")
def worker_user() -> Iterator[tuple[int, int]]:
    """A system user for the worker, as deploy/systemd has one; deleted after."""
    if os.geteuid() != 0:
        pytest.skip("making a worker user needs root")
    name = f"pw-test-{uuid.uuid4().hex[:8]}"
    _run(["useradd", "--system", "--no-create-home", "--user-group", "--shell",
          "/usr/sbin/nologin", name])
    try:
        ids = _run(["id", "-u", name]).stdout.strip(), _run(["id", "-g", name]).stdout.strip()
        yield int(ids[0]), int(ids[1])
    finally:
        subprocess.run(["userdel", name], check=False, capture_output=True)


def _delegate_cgroups(uid: int, gid: int) -> tuple[str, list[Path]]:
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


def _untraversable(path: Path) -> list[tuple[Path, str]]:
    """(ancestor, child) pairs on ``path`` that others cannot pass (e.g. /root 0700)."""
    found = []
    for parent in reversed(path.parents):
        if parent != Path("/") and not parent.stat().st_mode & 0o001:
            found.append((parent, path.relative_to(parent).parts[0]))
    return found


def _as_user(uid: int, gid: int, deploy_dir: Path, argv: list[Any]) -> list[str]:
    """``argv`` as ``uid`` without capabilities and with no_new_privs (as systemd starts the
    worker), in a private mount namespace where directories others cannot pass on the way to
    the interpreter (a pyenv under /root) are made passable: the host is left unchanged."""
    script = ["set -e"]
    for i, (ancestor, child) in enumerate(_untraversable(Path(sys.base_prefix).resolve())):
        keep = deploy_dir / f"keep-{i}"
        keep.mkdir(exist_ok=True)
        script += [f"mount --bind {ancestor / child} {keep}",
                   f"mount -t tmpfs -o mode=0711,size=1m pathways-test {ancestor}",
                   f"mkdir {ancestor / child}", f"mount --move {keep} {ancestor / child}"]
    script.append(f'exec setpriv --reuid={uid} --regid={gid} --clear-groups --inh-caps=-all '
                  '--bounding-set=-all --no-new-privs -- "$@"')
    return ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
            "\n".join(script), "sh", *[str(a) for a in argv]]


def _processes_of(uid: int) -> list[int]:
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


def _describe(pid: int) -> str:
    with contextlib.suppress(OSError):
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        cgroup = Path(f"/proc/{pid}/cgroup").read_text().replace("\n", " ")
        return f"{state} {cmd[:200]} {cgroup[:300]}"
    return "gone"


@pytest.mark.slow
def test_corpus_with_an_unprivileged_worker(wheel_python: Path, deploy_dir: Path,
                                            secret_dir_shared: Path,
                                            worker_user: tuple[int, int]) -> None:
    """The worker as its own user: the program runs as that uid (in a user namespace), so
    only the seccomp filter keeps it from ptracing bubblewrap's pid 1; nothing survives."""
    uid, gid = worker_user
    userns = subprocess.run(_as_user(uid, gid, deploy_dir, ["bwrap", "--unshare-user",
                                                            "--ro-bind", "/", "/", "true"]),
                            capture_output=True, text=True, check=False)
    if userns.returncode != 0:
        pytest.skip(f"this host gives an unprivileged user no user namespace: {userns.stderr}")
    try:
        rel, made = _delegate_cgroups(uid, gid)
    except OSError as exc:  # a fork bomb with neither root nor a pids cgroup: do not run it
        pytest.skip(f"no cgroup to delegate to the worker user: {exc}")
    (deploy_dir / "var").mkdir(exist_ok=True)
    os.chown(deploy_dir / "var", uid, gid)
    try:
        done = _run(_as_user(uid, gid, deploy_dir,
                             [wheel_python, "-E", "-s", HERE / "corpus_driver.py",
                              secret_dir_shared]),
                    cwd=deploy_dir, timeout=900,
                    env=_driver_env(deploy_dir, PATHWAYS_GRADER_CGROUP_ROOT=rel,
                                    TMPDIR=str(deploy_dir / "var")))
        report = _report(done)
        assert report["uid"] == uid and report["run_uid"] is None
        _check_report(report, wheel_python)
        left = {pid: _describe(pid) for pid in _processes_of(uid)}
        assert not left, left
        assert not [c for d in made if d.name == rel.rsplit("/", 1)[-1] for c in d.glob("*/")]
    finally:
        for pid in _processes_of(uid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, 9)
        for d in reversed(made):
            for child in sorted(d.glob("*/"), reverse=True):
                with contextlib.suppress(OSError):
                    child.rmdir()
            with contextlib.suppress(OSError):
                d.rmdir()
    assert not [d for d in made if d.exists()], "delegated cgroups left behind"


def test_a_venv_reached_through_a_symlink_is_masked_too(wheel_python: Path, deploy_dir: Path,
                                                        tmp_path: Path) -> None:
    """/opt/app/.venv -> /srv/venv-1.2: the sandbox binds the venv by the symlink's path, so
    its site-packages must be replaced there too, not only at the resolved path."""
    link = deploy_dir / "venv-link"
    link.symlink_to(wheel_python.parent.parent)
    runner = SandboxRunner(load_config({"PATHWAYS_VAR_DIR": str(tmp_path),
                                        "PATHWAYS_GRADER_PYTHON": str(link / "bin" / "python")}),
                           HARNESS_PATH)
    try:
        leak = grade(make_job((HERE / "hostile" / "read_packaged_content.py").read_text()),
                     runner=runner, checks_for=lambda _: FIXTURE_CHECKS, ceiling=CORPUS_LIMITS)
        good = grade(make_job(GOOD.read_text()), runner=runner,
                     checks_for=lambda _: FIXTURE_CHECKS, ceiling=CORPUS_LIMITS)
    finally:
        runner.close()
    assert leak.outcome == "exception", (leak.outcome, leak.stdout[:500])
    assert "nothing of the project is visible" in leak.stderr
    assert (good.outcome, good.score) == ("graded", 3.0), (good.feedback, good.stderr)
