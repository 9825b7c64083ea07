"""The learner ZIP's requirements: the learner lock file, whole, and nothing else."""

from __future__ import annotations

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
