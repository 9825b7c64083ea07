"""The learner ZIP's requirements: the learner lock file, whole, and nothing else."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from course.build.builder import REQUIREMENTS
from course.build.learner_zip import LearnerZipError, learner_requirements

SERVICE_ONLY = {"flask", "sqlalchemy", "pytest", "huey", "pylti1p3", "gunicorn", "redis"}


def _pins(text: str) -> dict[str, str]:
    return {ln.split("==")[0].lower(): ln.split("==")[1].split()[0] for ln in text.splitlines()
            if "==" in ln and not ln.startswith("#")}


def test_the_packaged_learner_lock_pins_what_the_course_imports_and_no_service() -> None:
    assert REQUIREMENTS.name == "requirements-learner.txt"
    pins = _pins(learner_requirements(REQUIREMENTS))
    assert {"jax", "jaxlib", "numpy", "matplotlib"} <= set(pins)
    assert not set(pins) & SERVICE_ONLY


def test_the_learner_pins_are_the_ones_the_grader_image_runs() -> None:
    # The grader runs learner code: the same versions a learner installs.
    grader = _pins((REQUIREMENTS.parents[1] / "requirements-grader.txt").read_text())
    learner = _pins(REQUIREMENTS.read_text())
    assert {name: grader.get(name) for name in learner} == learner


def test_a_file_without_the_learner_pins_is_refused(tmp_path: Path) -> None:
    wrong = tmp_path / "requirements.txt"
    wrong.write_text("flask==3.1.3\nnumpy==2.4.6\n")
    with pytest.raises(LearnerZipError, match="jax, jaxlib, matplotlib"):
        learner_requirements(wrong)
    with pytest.raises(LearnerZipError, match="does not exist"):
        learner_requirements(tmp_path / "missing.txt")


CHECKOUT = REQUIREMENTS.parents[1]
SEED_LESSON = "course/content/phases/01-arrays/04-immutable-updates-and-indexing/code/main.py"


def test_a_checkout_holds_the_learner_lock_at_its_root_as_the_seed_says() -> None:
    """The seed's setup, typed in a checkout, installs the learner's set: `make lock` writes
    requirements-cpu.txt and copies it to the packaged file, so the two never differ."""
    assert (CHECKOUT / "requirements-cpu.txt").read_text() == REQUIREMENTS.read_text()


def test_the_seeds_commands_work_from_a_checkout() -> None:
    """`python -m pip install -r requirements-cpu.txt` from the repository root (here already
    satisfied by the test environment, which pins the same versions), then a lesson's main.py."""
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "-r", "requirements-cpu.txt"],
        cwd=CHECKOUT, env=env, capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stderr[-2000:]
    assert "Would install" not in install.stdout, install.stdout[-2000:]
    lesson = subprocess.run([sys.executable, SEED_LESSON], cwd=CHECKOUT, env=env,
                            capture_output=True, text=True, timeout=300)
    assert lesson.returncode == 0, lesson.stderr[-2000:]
    assert "Original:" in lesson.stdout
