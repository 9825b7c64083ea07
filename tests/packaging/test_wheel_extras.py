"""The wheel installs per extra in a fresh venv, and each part starts from its own extra.

The wheel is built once (no build isolation: setuptools is in the test extra); each extra goes
into its own venv with uv, pinned by that image's lock file, so what is proved is what the
Dockerfiles install. uv's cache makes a repeat run take seconds; the first run on a machine
downloads the pinned wheels from the package index.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOP_NOT_SOURCES = {".git", ".venv", "var", "build", "dist", "runs", "test-artifacts",
                   ".ruff_cache", ".pytest_cache"}


def _not_sources(folder: str, names: list[str]) -> set[str]:
    """What a source checkout holds besides sources (top-level build/, not course/build/)."""
    top = Path(folder) == ROOT
    return {n for n in names if (top and n in TOP_NOT_SOURCES) or n in
            ("__pycache__", "node_modules") or n.endswith(".egg-info")}
pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Part:
    lock: str
    commands: list[list[str]]
    code: str = ""
    absent: list[str] = field(default_factory=list)
    refused: list[tuple[list[str], str]] = field(default_factory=list)
    """Commands of other parts: they stop with the extra to install, not a traceback."""


PARTS: dict[str, Part] = {
    "": Part("requirements-dev.txt", [["--help"], ["course", "validate", "--help"]],
             "import course; course.load_course()", ["flask", "jax", "sqlalchemy", "huey"],
             [(["demo"], "demo"), (["serve"], "service"), (["worker"], "grader")]),
    "service": Part(
        "requirements-service.txt",
        [["serve", "--help"], ["consumer", "--help"], ["db", "--help"], ["platform", "--help"]],
        "import tempfile, lti_service as s; d = tempfile.mkdtemp(); "
        "s.create_app({'var_dir': d, 'database_url': f'sqlite:///{d}/db'})",
        ["jax", "jaxlib", "lti1p3platform", "nbclient"]),
    "grader": Part("requirements-grader.txt", [["worker", "--help"]],
                   "import grader_worker.worker, grader_worker.runner, jax",
                   ["flask", "sqlalchemy", "pylti1p3", "alembic", "psycopg"],
                   [(["serve"], "service"), (["consumer"], "service")]),
    "demo": Part("requirements-dev.txt",
                 [["demo", "--help"], ["serve", "--help"], ["worker", "--help"]],
                 "import pathways.demo, devlms.server"),
    "author": Part("requirements-dev.txt",
                   [["course", "build", "--help"], ["course", "export", "--help"]],
                   "import nbformat, nbclient, course.build.builder, course.export.cli",
                   ["flask", "sqlalchemy"]),
}


def _uv() -> str:
    found = Path(sys.executable).with_name("uv")
    if found.exists():
        return str(found)
    return shutil.which("uv") or pytest.fail("uv is not installed (it is in the test extra)")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built from a copy: setuptools builds in the source tree (build/, *.egg-info), which
    another test process may be reading meanwhile (deploy/tpu/setup-grader.sh archives it)."""
    out, src = tmp_path_factory.mktemp("wheel"), tmp_path_factory.mktemp("wheel-src") / "src"
    shutil.copytree(ROOT, src, ignore=_not_sources)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(out), str(src)], check=True, timeout=300)
    (found,) = out.glob("jax_pathways-*.whl")
    return found


@pytest.mark.parametrize("extra", sorted(PARTS), ids=lambda e: e or "base")
def test_each_extra_installs_alone_and_starts_its_commands(wheel: Path, tmp_path: Path,
                                                           extra: str) -> None:
    part = PARTS[extra]
    venv = tmp_path / "venv"
    env = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "PYTHONPATH"}}
    env["JAX_PLATFORMS"] = "cpu"
    subprocess.run([_uv(), "venv", "-q", "--python", sys.executable, str(venv)], check=True,
                   env=env, timeout=120)
    python = venv / "bin" / "python"
    target = f"{wheel}[{extra}]" if extra else str(wheel)
    subprocess.run([_uv(), "pip", "install", "-q", "--python", str(python), target,
                    "-c", str(ROOT / part.lock)], check=True, env=env, timeout=900)

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        # cwd outside the checkout: only the installed packages can be imported
        return subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=300)

    for command in part.commands:
        done = run(str(venv / "bin" / "pathways"), *command)
        assert done.returncode == 0 and "Usage:" in done.stdout, (command, done.stderr[-2000:])
    if part.code:
        done = run(str(python), "-c", part.code)
        assert done.returncode == 0, done.stderr[-2000:]
    for command, needed in part.refused:
        done = run(str(venv / "bin" / "pathways"), *command)
        assert done.returncode == 1, (command, done.stdout, done.stderr)
        assert f"pip install 'jax-pathways[{needed}]'" in done.stderr, done.stderr[-2000:]
    probe = "import importlib.util as u, sys; print(*[m for m in sys.argv[1:] if u.find_spec(m)])"
    present = run(str(python), "-c", probe, *part.absent).stdout.split()
    assert present == [], f"[{extra}] installs {present}, which it must not"
