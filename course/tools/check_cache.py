"""The `course check` cache: a passing item is not run again until something it depends on
changes. Keys are content hashes, as `build`'s are (``course.build.cache``).

An item's key hashes its id; every file of its lesson folder; every content file outside the
lesson folders (course.yaml, phase files, anything a lesson could import from the content root);
the checks hash (the ``course`` package's code: loader, harness, checks, tools); the Python
version and the versions of the packages that shape the runs (``cache.PACKAGES``). Only passes
are stored, so a failing item always runs again; ``--no-cache`` runs everything.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from course.build.cache import file_digest, package_versions, tree_files
from course.model import Course, Lesson

log = logging.getLogger(__name__)
PACKAGE = Path(__file__).resolve().parents[1]


def default_path() -> Path:
    """``$PATHWAYS_CHECK_CACHE``, else the user's cache folder (keys are content hashes, so one
    file serves every checkout and content copy)."""
    explicit = os.environ.get("PATHWAYS_CHECK_CACHE")
    if explicit:
        return Path(explicit)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "pathways" / "course-check.json"


def _digest(lines: Iterable[str]) -> str:
    h = hashlib.sha256()
    for line in lines:
        h.update(line.encode() + b"\n")
    return h.hexdigest()


@lru_cache(maxsize=1)
def checks_hash() -> str:
    """The code that runs and judges the checks, with the interpreter and package versions."""
    code = sorted(p for p in PACKAGE.rglob("*.py")
                  if "content" not in p.relative_to(PACKAGE).parts[:1]
                  and "__pycache__" not in p.parts)
    return _digest([sys.version, package_versions(),
                    *(f"{p.relative_to(PACKAGE)}\0{file_digest(p)}" for p in code)])


def _tree_hash(folder: Path, files: Iterable[Path]) -> str:
    return _digest(f"{p.relative_to(folder)}\0{file_digest(p)}" for p in files)


def item_keys(course: Course, items: Iterable[tuple[str, Lesson]]) -> dict[str, str]:
    """item id -> cache key, for (item id, lesson) pairs."""
    lesson_dirs = {lesson.dir.resolve() for lesson in course.lessons()}
    every = tree_files(course.root)
    shared = [p for p in every
              if not any(d == p.resolve() or d in p.resolve().parents for d in lesson_dirs)]
    shared_hash = _tree_hash(course.root, shared)
    lesson_hash: dict[Path, str] = {}
    keys = {}
    for item_id, lesson in items:
        if lesson.dir not in lesson_hash:
            lesson_hash[lesson.dir] = _tree_hash(lesson.dir, tree_files(lesson.dir))
        keys[item_id] = _digest([item_id, lesson_hash[lesson.dir], shared_hash, checks_hash()])
    return keys


class CheckCache:
    """item id -> key of its last pass, in one JSON file (written atomically)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.passed: dict[str, str] = {}
        if path.is_file():
            try:
                self.passed = {str(k): str(v) for k, v in json.loads(path.read_text()).items()}
            except (ValueError, TypeError, AttributeError):
                log.warning("ignoring unreadable check cache %s: every item runs", path)

    def fresh(self, item_id: str, key: str) -> bool:
        return self.passed.get(item_id) == key

    def record(self, item_id: str, key: str, ok: bool) -> None:
        if ok:
            self.passed[item_id] = key
        else:
            self.passed.pop(item_id, None)

    def save(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps(self.passed, indent=1, sort_keys=True) + "\n")
            tmp.replace(self.path)
        except OSError as exc:  # a read-only home must not fail a check that passed
            log.warning("could not save the check cache %s: %s", self.path, exc)
