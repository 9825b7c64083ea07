"""Fixtures for the course tests: the packaged content, and writable copies of it to break."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from content_background import TEST_NAME, Background

from course import CONTENT_ROOT
from course.tools.checking import Item
from course.tools.execute import shared_runs

LESSON_04 = "phases/01-arrays/04-immutable-updates-and-indexing"
BACKGROUND = pytest.StashKey[Background]()


def _content_item(test: pytest.Item) -> Item | None:
    if getattr(test, "originalname", "") != TEST_NAME:
        return None
    item = test.callspec.params.get("item")  # type: ignore[attr-defined]
    return item if isinstance(item, Item) else None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """test_content_runs last: its items run in the background meanwhile (content_background)."""
    items.sort(key=lambda test: getattr(test, "originalname", "") == TEST_NAME)


def _start(session: pytest.Session) -> Background | None:
    selected = [item for test in session.items if (item := _content_item(test)) is not None]
    if not selected or session.config.option.collectonly:
        return None
    session.config.stash[BACKGROUND] = Background(selected)
    return session.config.stash[BACKGROUND]


def pytest_collection_finish(session: pytest.Session) -> None:
    # An xdist worker collects every item but runs only those it is sent: starting here would
    # run the course once per worker. There it starts on the first content test instead
    # (scripts/test.sh runs these items in a pytest process of their own, beside the workers).
    if "PYTEST_XDIST_WORKER" not in os.environ:
        _start(session)


def pytest_sessionfinish(session: pytest.Session) -> None:
    background = session.config.stash.get(BACKGROUND, None)
    if background is not None:
        background.close()


@pytest.fixture(scope="session")
def content_results(request: pytest.FixtureRequest) -> dict:
    """Futures of the selected test_content_runs items, started when collection ended."""
    background = request.config.stash.get(BACKGROUND, None)
    if background is None and "PYTEST_XDIST_WORKER" in os.environ:
        background = _start(request.session)
    return background.futures if background is not None else {}


@pytest.fixture(scope="module")
def warm_runs():
    """One fork server and compilation cache for a module's graded runs, as `course check`
    has: each run then skips the ~2 s cold JAX import (the runs' code is what a test checks;
    test_forkserver and test_compile_cache hold the forked and cold runs alike)."""
    with shared_runs():
        yield


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
