"""``build_site``: the list of outputs of ``pathways course build`` and what each is made from.

Outputs (under ``out``): ``index.html``, ``style.css``, ``lessons/<id>.html`` and its assets,
``projects/<slug>.html``, ``notebooks/<id>.ipynb`` (executed, unless the build is a preview:
``execute=False``), ``exercises/<id>.py`` and ``.ipynb``, and
``downloads/jax-pathways-learner.zip``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from course.build.cache import tree_files, tree_fingerprint
from course.build.pipeline import BuildReport, Progress, Target, reuse_all, run_targets
from course.loader import CONTENT_ROOT

if TYPE_CHECKING:
    from course.model import Course, Lesson, Phase

PACKAGE = Path(__file__).resolve().parent.parent
REQUIREMENTS = PACKAGE / "requirements-learner.txt"  # ships in the wheel: `make lock` writes it


def _code(*modules: str) -> tuple[Path, ...]:
    """Source files of the code that makes an output: changing the code rebuilds it."""
    return tuple(p for m in modules for p in sorted((PACKAGE / m).glob("*.py")))


RENDER = (*_code("render"), PACKAGE / "build" / "site.py")
NOTEBOOK_CODE = (PACKAGE / "build" / "notebooks.py",)


def _lesson_inputs(lesson: Lesson) -> tuple[Path, ...]:
    return tuple(tree_files(lesson.dir))


def _project_shown(phase: Phase) -> str:
    """What a lesson page shows of its phase's project (not its folder, which moves)."""
    p = phase.project
    return repr((p.id, p.slug, p.title, p.summary, p.checkpoint_prompt, p.stages)) if p else ""


def _guide_shown(phase: Phase) -> str:
    """What a phase's study guide shows: it is rebuilt when (and only when) that changes."""
    lessons = [(le.id, le.title, le.minutes, le.objectives, le.prerequisites)
               for le in phase.lessons]
    return repr((phase.id, phase.number, phase.title, phase.summary, lessons,
                 _project_shown(phase)))


def _notebook_target(lesson: Lesson, files: tuple[Path, ...], execute: bool) -> Target:
    """The lesson notebook, executed in a kernel of its own, or (a preview) its cells only:
    which of the two is part of its key, so a preview's notebook is never reused by a build
    that executes."""
    from course.build import notebooks

    make = ((lambda: notebooks.execute_lesson_notebook(lesson)) if execute
            else (lambda: notebooks.unexecuted_lesson_notebook(lesson)))
    return Target(f"notebooks/{lesson.id}.ipynb",
                  (*files, *NOTEBOOK_CODE, f"executed: {execute}"), make, lesson.id)


def _lesson_targets(course: Course, phase: Phase, lesson: Lesson,
                    execute: bool = True) -> list[Target]:
    from course.build import notebooks, site
    from course.render import lesson_html

    files = _lesson_inputs(lesson)
    links = site.static_links(course, phase, lesson)
    title = f"{lesson.title} · {course.title}"
    page = Target(
        site.lesson_page(lesson), (*files, *RENDER, repr(links), _project_shown(phase)),
        lambda: site.document(title, lesson_html(lesson, links=links, project=phase.project),
                              depth=1).encode(),
        lesson.id)
    assets = [
        (lesson.figure.image_path, "figure.png"), (lesson.figure.data_path, "data.json"),
        (lesson.main_path, "main.py"), (lesson.dir / "evidence.md", "evidence.md"),
        (lesson.dir / "receipt.json", "receipt.json"), (lesson.dir / "lesson.md", "lesson.md"),
    ]
    out = [page]
    for source, name in assets:
        if source.is_file():
            out.append(Target(site.asset(lesson, name), (source,),
                              lambda s=source: s.read_bytes(), lesson.id))
    starters = tuple(lesson.dir / "exercises" / ex.slug / "starter.py" for ex in lesson.exercises)
    ex_inputs = (lesson.main_path, *[s for s in starters if s.is_file()],
                 lesson.dir / "lesson.md", *NOTEBOOK_CODE)
    out += [
        _notebook_target(lesson, files, execute),
        Target(f"exercises/{lesson.id}.py", ex_inputs,
               lambda: notebooks.exercise_script(lesson), lesson.id),
        Target(f"exercises/{lesson.id}.ipynb", ex_inputs,
               lambda: notebooks.exercise_notebook(lesson), lesson.id),
    ]
    return out


def plan(course: Course, requirements: Path = REQUIREMENTS, *,
         execute: bool = True) -> list[Target]:
    """Every output target of a build, in build order (``execute``: False for a preview, whose
    lesson notebooks hold their cells without running them)."""
    # Imported here: the no-change path (``build``) must not pay for Markdown, Pygments, ...
    from course.build import learner_zip, notebooks, site
    from course.render import guide_html, project_html, setup_html, stylesheet

    targets = [
        Target(site.STYLE, _code("render"), lambda: stylesheet().encode()),
        Target("index.html", (site.index_inputs(course), *RENDER),
               lambda: site.index_page(course, learner_zip.ZIP_NAME).encode()),
        Target(site.SETUP, RENDER, lambda: site.document(
            f"Setup help · {course.title}",
            setup_html(repository_zip=learner_zip.ZIP_NAME), depth=0).encode()),
    ]
    for phase in course.phases:
        for lesson in phase.lessons:
            targets += _lesson_targets(course, phase, lesson, execute)
        targets.append(Target(
            site.guide_page(phase),
            (_guide_shown(phase), *RENDER),
            lambda ph=phase: site.document(
                f"{ph.title}: study guide · {course.title}",
                guide_html(ph, lessons={le.id: f"../{site.lesson_page(le)}" for le in ph.lessons},
                           setup=f"../{site.SETUP}",
                           project=f"../{site.project_page(ph.project.slug)}"
                           if ph.project else None), depth=1).encode(),
            phase.id))
        if phase.project:
            project = phase.project
            targets.append(Target(
                site.project_page(project.slug),
                (*tree_files(project.dir, exclude=("solution",)), *RENDER),
                lambda p=project: site.document(
                    f"{p.title} · {course.title}", project_html(p), depth=1).encode(),
                project.id))
    generated = {
        f"exercises/{lesson.id}{suffix}": (lesson, make)
        for lesson in course.lessons()
        for suffix, make in ((".py", notebooks.exercise_script),
                             (".ipynb", notebooks.exercise_notebook))
    }
    sources = learner_zip.zip_sources(course)
    zip_inputs = (*[f"{name}\n" for name, _ in sources], *[src for _, src in sources],
                  requirements if requirements.is_file() else "no requirements",
                  *[lesson.dir / "exercises" / ex.slug / "starter.py"
                    for lesson, ex in course.exercises()],
                  PACKAGE / "build" / "learner_zip.py", *NOTEBOOK_CODE, *sorted(generated))
    targets.append(Target(
        learner_zip.ZIP_NAME, zip_inputs,
        lambda: learner_zip.make_zip(
            course, requirements, {n: make(lesson) for n, (lesson, make) in generated.items()})))
    return targets


def fingerprint(root: Path, requirements: Path, execute: bool = True) -> str:
    """Everything a build reads: the content tree, the course package's code, the pins, and
    whether its notebooks are executed (a preview's outputs never pass for a full build's)."""
    code = sorted(p for p in PACKAGE.rglob("*.py")
                  if "content" not in p.relative_to(PACKAGE).parts[:1])
    tree = tree_fingerprint([root], [*code, requirements])
    return tree if execute else f"{tree}:preview"


def build_site(course: Course, out: Path, *, requirements: Path = REQUIREMENTS,
               progress: Progress | None = None, jobs: int = 2,
               execute: bool = True) -> BuildReport:
    """Build (or bring up to date) the static site, notebooks, exercises and learner ZIP;
    ``execute=False`` is a preview: the same outputs, the lesson notebooks not run."""
    return run_targets(plan(course, requirements, execute=execute), out, progress,
                       fingerprint(course.root, requirements, execute), jobs=jobs)


def build(root: Path | None, out: Path, *, requirements: Path = REQUIREMENTS,
          progress: Progress | None = None, jobs: int = 2, execute: bool = True) -> BuildReport:
    """``build_site`` for the content under ``root``, skipping even the loading of the course
    when nothing it reads changed since the last complete build."""
    from course.loader import load_course

    root = (root or CONTENT_ROOT).resolve()
    report = reuse_all(out, fingerprint(root, requirements, execute), progress)
    return report if report is not None else build_site(
        load_course(root), out, requirements=requirements, progress=progress, jobs=jobs,
        execute=execute)
