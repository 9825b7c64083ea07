"""The learner download: a ZIP laid out so the lesson page's commands work in it
(``python phases/01-arrays/<lesson>/code/main.py`` from the unpacked folder). Hidden files
(exercise solutions and checks, project solutions) are never in it."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from course.build.cache import tree_files
from course.errors import CourseError
from course.model import Course, Lesson

ZIP_NAME = "downloads/jax-pathways-learner.zip"
LESSON_FILES = ("lesson.md", "evidence.md", "receipt.json")
LESSON_DIRS = ("code", "experiments", "figure")
PROJECT_FILES = ("README.md", "project.yaml", "run.py")
PROJECT_DIRS = ("starter",)
HIDDEN_NAMES = ("solution.py", "checks.py")
FIXED_TIME = (2026, 1, 1, 0, 0, 0)  # same bytes for the same files: the ZIP is cacheable


class LearnerZipError(CourseError):
    """The learner ZIP cannot be made (e.g. the requirements file is missing)."""


LEARNER_PINS = frozenset({"jax", "jaxlib", "numpy", "matplotlib"})


def learner_requirements(requirements: Path) -> str:
    """The learner's pinned set (course/requirements-learner.txt, written by ``make lock``):
    checked for the packages the course's code imports, so a wrong file fails the build."""
    if not requirements.is_file():
        raise LearnerZipError(f"{requirements} does not exist: the learner ZIP needs the pinned "
                              "requirements; run `make lock` or pass --requirements")
    text = requirements.read_text()
    pins = {ln.split("==")[0].strip().lower() for ln in text.splitlines()
            if "==" in ln and not ln.lstrip().startswith("#")}
    missing = LEARNER_PINS - pins
    if missing:
        raise LearnerZipError(
            f"{requirements} lacks pins for {', '.join(sorted(missing))}: "
            "it must be the learner's lock file (course/requirements-learner.txt)")
    return text


def lesson_files(lesson: Lesson) -> list[tuple[str, Path]]:
    """(path in the ZIP, source) for one lesson's learner files."""
    files = [(name, lesson.dir / name) for name in LESSON_FILES if (lesson.dir / name).is_file()]
    for name in LESSON_DIRS:
        if (lesson.dir / name).is_dir():
            files += [(str(p.relative_to(lesson.dir)), p) for p in tree_files(lesson.dir / name)]
    return [(f"{lesson.relpath}/{rel}", src) for rel, src in files
            if Path(rel).name not in HIDDEN_NAMES]


def zip_sources(course: Course) -> list[tuple[str, Path]]:
    """Every file the ZIP copies from the content, in order (generated files come on top)."""
    files: list[tuple[str, Path]] = []
    for phase in course.phases:
        for lesson in phase.lessons:
            files += lesson_files(lesson)
        project = phase.project
        if project is not None:
            root = f"projects/{project.slug}"
            files += [(f"{root}/{n}", project.dir / n) for n in PROJECT_FILES
                      if (project.dir / n).is_file()]
            for name in PROJECT_DIRS:
                files += [(f"{root}/{p.relative_to(project.dir)}", p)
                          for p in tree_files(project.dir / name)]
    return files


def readme(course: Course) -> str:
    first = course.lessons()[-1] if course.lessons() else None
    run = f"python {first.relpath}/code/main.py" if first else "python phases/.../code/main.py"
    return (f"# {course.title} (version {course.version}): learner files\n\n"
            "Open a terminal in this folder (the one holding requirements-cpu.txt), then:\n\n"
            "    python3 -m venv .venv\n    source .venv/bin/activate\n"
            "    python -m pip install -r requirements-cpu.txt\n"
            f"    {run}\n\n"
            "exercises/ holds each lesson's code with the exercise starters; projects/ the phase "
            "projects (run with --implementation starter).\n")


def make_zip(course: Course, requirements: Path, generated: dict[str, bytes]) -> bytes:
    """The ZIP bytes: content files, the learner requirements, and ``generated`` files
    (exercise scripts and notebooks) by their path in the ZIP."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        def put(name: str, data: bytes) -> None:
            info = zipfile.ZipInfo(name, FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data)

        put("README.md", readme(course).encode())
        put("requirements-cpu.txt", learner_requirements(requirements).encode())
        for name, source in zip_sources(course):
            put(name, source.read_bytes())
        for name in sorted(generated):
            put(name, generated[name])
    return buffer.getvalue()
