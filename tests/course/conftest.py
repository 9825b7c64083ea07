"""Fixtures for the course tests: the packaged content, and writable copies of it to break."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from course import CONTENT_ROOT

LESSON_04 = "phases/01-arrays/04-immutable-updates-and-indexing"


@pytest.fixture(autouse=True)
def private_check_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's own `course check` cache: a pass cached by another run must not hide a run."""
    path = tmp_path / "check-cache.json"
    monkeypatch.setenv("PATHWAYS_CHECK_CACHE", str(path))
    return path


@pytest.fixture
def content_copy(tmp_path: Path) -> Path:
    """A copy of the whole content tree that a test may edit or break."""
    root = tmp_path / "content"
    shutil.copytree(CONTENT_ROOT, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.fixture
def lesson04_course(tmp_path: Path) -> Path:
    """A one-lesson course holding only lesson 04 (and the phase project), valid on its own.

    Lets lesson-04 tests run whatever state the other lessons are in.
    """
    root = tmp_path / "course04"
    root.mkdir()
    course_yaml = (CONTENT_ROOT / "course.yaml").read_text(encoding="utf-8")
    phases = course_yaml.index("phases:")
    (root / "course.yaml").write_text(course_yaml[:phases] + "phases:\n  - 01-arrays\n",
                                      encoding="utf-8")
    shutil.copytree(CONTENT_ROOT / "projects", root / "projects")
    phase = root / "phases" / "01-arrays"
    phase.mkdir(parents=True)
    shutil.copy(CONTENT_ROOT / "phases/01-arrays/phase.yaml", phase / "phase.yaml")
    shutil.copytree(CONTENT_ROOT / LESSON_04, root / LESSON_04,
                    ignore=shutil.ignore_patterns("__pycache__"))
    md = root / LESSON_04 / "lesson.md"
    md.write_text(md.read_text(encoding="utf-8").replace("prerequisites: [arrays-03]",
                                                         "prerequisites: []"), encoding="utf-8")
    return root
