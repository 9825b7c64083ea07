"""``load_course()``: every content file validated, cross-checked, and built into the model.

All problems of all files are collected and raised together as one ``ContentError``.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

from course.checks.runner import ChecksError, load_suite
from course.errors import ContentError, Problem, relative
from course.lessons import load_lesson
from course.model import (
    CheckTitle,
    Course,
    Exercise,
    Lesson,
    Phase,
    Project,
    ProjectStage,
    SelfCheck,
)
from course.schemas import CourseSchema, PhaseSchema, ProjectSchema, load_document
from course.yamlsource import YamlDoc, parse_yaml

log = logging.getLogger(__name__)

CONTENT_ROOT = Path(__file__).resolve().parent / "content"
PROJECT_FILES = ("README.md", "starter/model.py", "solution/model.py", "run.py")


def _yaml_file(path: Path, kind: str, schema: object, root: Path,
               problems: list[Problem], fix: str) -> tuple[dict | None, YamlDoc | None]:
    file = relative(path, root)
    if not path.is_file():
        problems.append(Problem(file, "", f"missing {path.name}", fix))
        return None, None
    doc, yaml_problems = parse_yaml(path.read_text(encoding="utf-8"), file)
    problems.extend(yaml_problems)
    if doc is None:
        return None, None
    data, schema_problems = load_document(kind, schema, doc, file)  # type: ignore[arg-type]
    problems.extend(schema_problems)
    return data, doc


def _project(slug: str, phase_dir: Path, root: Path, problems: list[Problem]) -> Project | None:
    folder = root / "projects" / slug
    data, _ = _yaml_file(folder / "project.yaml", "project", ProjectSchema(), root, problems,
                         f"write projects/{slug}/project.yaml (schema, slug, title, summary, "
                         "checkpoint_prompt, stages) or remove `project` from phase.yaml")
    for name in PROJECT_FILES:
        if not (folder / name).is_file():
            problems.append(Problem(relative(folder / name, root), "", f"missing project file "
                                    f"{name}", f"add {name} to projects/{slug}/"))
    if data is None:
        return None
    file = relative(folder / "project.yaml", root)
    if data["slug"] != slug:
        problems.append(Problem(file, "slug", f"slug `{data['slug']}` differs from the folder "
                                f"name `{slug}`", f"write `slug: {slug}`"))
    numbers = [s["number"] for s in data["stages"]]
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append(Problem(file, "stages", f"stages are numbered {numbers}",
                                "number the stages 1, 2, 3, ... in order"))
    readme = folder / "README.md"
    exercise, checks = _project_exercise(slug, folder, data, root, problems)
    return Project(
        id=f"project.{slug}", slug=slug, phase_id=phase_dir.name, title=data["title"],
        summary=data["summary"], checkpoint_prompt=data["checkpoint_prompt"],
        stages=tuple(ProjectStage(s["number"], s["title"], s["description"])
                     for s in data["stages"]),
        guide_md=readme.read_text(encoding="utf-8") if readme.is_file() else "",
        dir=folder, exercise=exercise, checks=checks,
    )


def _project_exercise(slug: str, folder: Path, data: dict, root: Path, problems: list[Problem]
                      ) -> tuple[Exercise | None, tuple[CheckTitle, ...]]:
    """The gradable project when ``checks.py`` exists (model.py submitted whole), and its
    checks' titles and points."""
    checks = folder / "checks.py"
    starter, solution = folder / "starter/model.py", folder / "solution/model.py"
    if not checks.is_file() or not starter.is_file() or not solution.is_file():
        return None, ()
    try:
        suite = load_suite(checks)
    except ChecksError as exc:
        problems.append(Problem(relative(checks, root), "", str(exc).split(": ", 1)[-1],
                                "define EXERCISE and calls(params, rng) (docs/AUTHORING.md)"))
        return None, ()
    solution_code = solution.read_text(encoding="utf-8")
    digest = hashlib.sha256(checks.read_bytes() + b"\0" + solution_code.encode()).hexdigest()
    stages = tuple(f"Stage {s['number']}: {s['title']}" for s in data["stages"])
    prompt = (f"{data['summary']} Submit your `starter/model.py`: hidden stage checks call "
              "its functions on inputs you have not seen.")
    titles = tuple(CheckTitle(c.spec.title, c.spec.points) for c in suite.checks)
    return Exercise(
        f"project.{slug}", slug, "project", data["title"], prompt, (), stages, (), "",
        starter.read_text(encoding="utf-8"), solution_code, checks, suite.max_points, (),
        digest, suite.function.function if suite.function else "", standalone=True,
        devices=data["devices"]), titles


def _phase(index: int, name: str, root: Path, problems: list[Problem]) -> Phase | None:
    phase_dir = root / "phases" / name
    if not phase_dir.is_dir():
        problems.append(Problem("course.yaml", f"phases[{index}]", f"no folder phases/{name}/",
                                f"create phases/{name}/ with a phase.yaml, or remove it"))
        return None
    data, _ = _yaml_file(phase_dir / "phase.yaml", "phase", PhaseSchema(), root, problems,
                         "write phase.yaml (schema, id, number, title, summary, project)")
    file = relative(phase_dir / "phase.yaml", root)
    lessons: list[Lesson] = []
    id_prefix = (data or {}).get("lesson_prefix") or name.split("-", 1)[1]
    for folder in sorted(p for p in phase_dir.iterdir() if p.is_dir()):
        if folder.name.startswith((".", "_")):
            continue
        lesson = load_lesson(folder, id_prefix, root, problems)
        if lesson is not None:
            lessons.append(lesson)
    if data is None:
        return None
    if data["id"] != name:
        problems.append(Problem(file, "id", f"id `{data['id']}` differs from the folder "
                                f"name `{name}`", f"write `id: {name}`"))
    if data["number"] != int(name[:2]):
        problems.append(Problem(file, "number", f"number {data['number']} differs from the "
                                f"folder name `{name}`", f"write `number: {int(name[:2])}`"))
    project = _project(data["project"], phase_dir, root, problems) if data["project"] else None
    lesson_ids = {lesson.id for lesson in lessons}
    for index, item in enumerate(data["self_check"]):
        if item["lesson"] not in lesson_ids:
            problems.append(Problem(file, f"self_check[{index}].lesson",
                                    f"`{item['lesson']}` is not a lesson of this phase",
                                    "name one of: " + ", ".join(sorted(lesson_ids))))
    return Phase(name, data["number"], data["title"], data["summary"], tuple(lessons), project,
                 tuple(data["how_to_study"]),
                 tuple(SelfCheck(i["question"], i["answer"], i["lesson"])
                       for i in data["self_check"]))


def _cross_checks(course: Course, problems: list[Problem]) -> None:
    """Ids unique across the course; prerequisites name earlier lessons that exist."""
    seen: dict[str, str] = {}
    for lesson in course.lessons():
        file = relative(lesson.dir / "lesson.md", course.root)
        ids = [lesson.id, lesson.checkpoint.id, *(e.id for e in lesson.exercises)]
        for item in ids:
            if item in seen:
                problems.append(Problem(file, "id", f"id `{item}` is also used by {seen[item]}",
                                        "give every lesson its own id"))
            seen.setdefault(item, file)
    known = {lesson.id for lesson in course.lessons()}
    for lesson in course.lessons():
        file = relative(lesson.dir / "lesson.md", course.root)
        for index, prerequisite in enumerate(lesson.prerequisites):
            if prerequisite == lesson.id:
                problems.append(Problem(file, f"prerequisites[{index}]", "a lesson cannot be "
                                        "its own prerequisite", "remove it"))
            elif prerequisite not in known:
                problems.append(Problem(file, f"prerequisites[{index}]", f"no lesson has id "
                                        f"`{prerequisite}`", "name an existing lesson id, such "
                                        f"as one of: {', '.join(sorted(known))}"))


def load_course(root: Path | None = None) -> Course:
    """The course under ``root`` (default: the packaged ``course/content``).

    Raises ContentError listing every problem found in every file.
    """
    course, problems = load_course_partial(root)
    if problems:
        raise ContentError(problems)
    return course


def load_course_partial(root: Path | None = None) -> tuple[Course, list[Problem]]:
    """The lessons that load, and every problem found.

    For tools working on one lesson (`check --lesson`) while another is unfinished. Raises
    ContentError only when course.yaml itself is unusable.
    """
    root = (root or CONTENT_ROOT).resolve()
    problems: list[Problem] = []
    data, doc = _yaml_file(root / "course.yaml", "course", CourseSchema(), root, problems,
                           f"write course.yaml (schema, title, version, phases) in {root}")
    if data is None:
        # Keep going with the phase list if it is readable: every file's problems at once.
        raw = doc.data if doc is not None and isinstance(doc.data, dict) else {}
        names = raw.get("phases")
        if not (isinstance(names, list) and names and all(isinstance(n, str) for n in names)
                and (root / "phases").is_dir()):
            raise ContentError(problems)
        data = {"title": "", "version": "", "phases": names}
    phases = [_phase(i, name, root, problems) for i, name in enumerate(data["phases"])]
    listed = set(data["phases"])
    for folder in sorted((root / "phases").glob("*/")):
        if folder.is_dir() and folder.name not in listed:
            problems.append(Problem("course.yaml", "phases", f"phase folder phases/{folder.name}"
                                    "/ is not listed", f"add `{folder.name}` to `phases`"))
    course = Course(data["title"], data["version"], root,
                    tuple(p for p in phases if p is not None))
    _cross_checks(course, problems)
    log.debug("loaded %d lessons from %s (%d problems)", len(course.lessons()), root,
              len(problems))
    return course, problems
