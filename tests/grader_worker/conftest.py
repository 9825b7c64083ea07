"""Fixtures for the grader: a real sandbox runner, the hostile corpus's canaries, and a seed
pool holding every exercise's reference report."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from grader_helpers import CANARY, worker_env

from course.checks import HARNESS_PATH
from grader_worker.config import load_config
from grader_worker.runner import SandboxRunner


@pytest.fixture(scope="session")
def runner() -> Iterator[SandboxRunner]:
    r = SandboxRunner(load_config({"PATHWAYS_VAR_DIR": "var"}), HARNESS_PATH)
    yield r
    r.close()


@pytest.fixture(scope="session")
def secret_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A stand-in for the service's var/: a key and a database holding the canary."""
    d = tmp_path_factory.mktemp("var")
    (d / "keys").mkdir()
    (d / "keys" / "tool-private.pem").write_text(f"-----BEGIN PRIVATE KEY-----\n{CANARY}\n")
    (d / "pathways.sqlite3").write_text(CANARY)
    return d


@dataclass(frozen=True)
class CoursePool:
    path: Path
    output: str
    """What `pathways seed-pool` printed: a line per (exercise, variant) it filled."""


@pytest.fixture(scope="session")
def course_pool(tmp_path_factory: pytest.TempPathFactory) -> CoursePool:
    """A seed pool with one entry for each function exercise's first variant, filled by the
    real `pathways seed-pool --per-variant 1 --variants 1` with warm runs, as a worker runs
    them: every exercise's reference runs once in the deployed sandbox, and the queue tests
    grade from a copy (grader_helpers.drawing_from) with one sandboxed run a submission
    instead of two, reading the compilation cache the command warmed with the course's public
    programs first. Filled once per test run: pytest-xdist's workers share the run's base
    folder (the parent of each one's own) and take turns under a lock there."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    folder = base / "course-pool"
    folder.mkdir(exist_ok=True)
    done = folder / "seed-pool.out"
    with (base / "course-pool.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            env = {**worker_env(folder / "var", "course-pool-", warm=True),
                   "PATHWAYS_GRADER_SEED_POOL_SIZE": "1"}
            exe = Path(sys.executable).with_name("pathways")
            run = subprocess.run([str(exe), "seed-pool", "--per-variant", "1", "--variants",
                                  "1", "--concurrency", "2"], env=env, capture_output=True,
                                 text=True, timeout=1200)
            if run.returncode != 0:
                pytest.fail(f"pathways seed-pool failed:\n{run.stdout[-2000:]}\n"
                            f"{run.stderr[-3000:]}")
            done.write_text(run.stdout)
    return CoursePool(folder / "var" / "grader" / "seed-pool.sqlite", done.read_text())
