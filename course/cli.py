"""`pathways course ...`: validate, check and record (here); build and export (lazily).

Thin wrappers: the work is in course.loader and course.tools; this module only parses options,
shows progress and sets the exit status.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import click

from course.errors import ContentError, Problem
from course.loader import load_course, load_course_partial
from course.model import Course, Lesson

# Imported only when asked for (validate/check/record never load the build or export code); an
# ImportError there is a bug and fails loudly.
LAZY: dict[str, tuple[str, str]] = {
    "build": ("course.build.cli:build", "Build the static site, notebooks and downloads."),
    "export": ("course.export.cli:export", "Export the IMS Common Cartridge and QTI quiz."),
}

ROOT = click.option("--root", type=click.Path(file_okay=False, exists=True, path_type=Path),
                    default=None, help="Content folder (default: the packaged course/content).")
LESSON = click.option("--lesson", "lesson_id", default=None, metavar="ID",
                      help="Only this lesson (an id such as arrays-04).")
WORKERS = click.option("--workers", default=2, show_default=True, type=click.IntRange(1, 16),
                       help="Subprocesses at a time.")
TIMEOUT = click.option("--timeout", default=180.0, show_default=True, type=float,
                       help="Seconds each run may take.")


class CourseGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *LAZY])

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        command = super().get_command(ctx, name)
        if command is not None or name not in LAZY:
            return command
        module_name, attr = LAZY[name][0].split(":")
        return getattr(importlib.import_module(module_name), attr)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(n, c.get_short_help_str()) for n, c in sorted(self.commands.items())]
        rows += [(n, help_text) for n, (_, help_text) in sorted(LAZY.items())]
        with formatter.section("Commands"):
            formatter.write_dl(sorted(rows))


def _load(root: Path | None, lesson_id: str | None) -> Course:
    """The course; with --lesson, problems confined to other lessons are only warned about."""
    try:
        course, problems = load_course_partial(root)
    except ContentError as exc:
        _print_problems(exc)
        sys.exit(1)
    if problems:
        lesson = course.lesson(lesson_id) if lesson_id else None
        own = lesson is None or [p for p in problems if _concerns(p, lesson, course)]
        if own:
            _print_problems(ContentError(problems))
            sys.exit(1)
        click.echo(f"warning: {len(problems)} problem(s) elsewhere in the content (run "
                   "`pathways course validate`); going on with this lesson", err=True)
    if lesson_id is not None and course.lesson(lesson_id) is None and not (
            lesson_id.startswith("project.") and course.exercise(lesson_id)):
        known = ", ".join(x.id for x in course.lessons())
        raise click.BadParameter(f"no lesson {lesson_id!r}; the lessons are: {known}",
                                 param_hint="--lesson")
    return course


def _concerns(problem: Problem, lesson: Lesson, course: Course) -> bool:
    """Whether a problem is in the lesson's own files or in a file every lesson depends on."""
    shared = {"course.yaml", f"phases/{lesson.phase_id}/phase.yaml"}
    folder = str(lesson.dir.relative_to(course.root))
    return problem.file in shared or problem.file.startswith(folder + "/")


def _print_problems(exc: ContentError) -> None:
    for problem in exc.problems:
        where = f"{problem.file}: {problem.where}" if problem.where else problem.file
        click.echo(f"{where}: {problem.message}", err=True)
        click.echo(f"    fix: {problem.fix}", err=True)
    count = len(exc.problems)
    click.echo(f"{count} problem{'s' if count != 1 else ''}: the content is not valid", err=True)


@click.group(cls=CourseGroup)
def course() -> None:
    """Validate, check, record, build and export the course."""


@course.command()
@ROOT
def validate(root: Path | None) -> None:
    """Check every content file against its schema and each other (no code runs)."""
    try:
        loaded = load_course(root)
    except ContentError as exc:
        _print_problems(exc)
        sys.exit(1)
    lessons = loaded.lessons()
    click.echo(f"valid: {len(loaded.phases)} phase(s), {len(lessons)} lesson(s), "
               f"{sum(len(x.exercises) for x in lessons)} exercise(s)")


@course.command()
@ROOT
@LESSON
@WORKERS
@TIMEOUT
@click.option("--kind", "kinds", multiple=True,
              type=click.Choice(["main", "build", "experiment", "figure", "solution", "starter",
                                 "hardcoded", "variant", "counterexample"]),
              help="Only items of this kind (repeatable).")
@click.option("--no-cache", is_flag=True,
              help="Run every item, even those that passed with the same inputs.")
@click.option("--cache", "cache_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Cache file (default: $PATHWAYS_CHECK_CACHE or "
              "~/.cache/pathways/course-check.json).")
def check(root: Path | None, lesson_id: str | None, workers: int, timeout: float,
          kinds: tuple[str, ...], no_cache: bool, cache_path: Path | None) -> None:
    """Run every code block and compare it with its recorded output.

    An item that passed with the same inputs (content, checks code, package versions) is not
    run again: see course/tools/check_cache.py. The runs share one JAX compilation cache, in a
    folder of this check's own ($PATHWAYS_CHECK_JAX_CACHE: a folder to keep, or "off").
    """
    from course.tools.check_cache import CheckCache, default_path
    from course.tools.checking import ItemResult, plan, run_items_cached

    loaded = _load(root, lesson_id)
    items = [i for i in plan(loaded, lesson_id) if not kinds or i.kind in kinds]
    cache = None if no_cache else CheckCache(cache_path or default_path())
    click.echo(f"checking {len(items)} item(s) with {workers} worker(s)")
    done = 0

    def progress(result: ItemResult) -> None:
        nonlocal done
        done += 1
        status = "pass (cached)" if result.cached else "pass" if result.ok else "FAIL"
        note = f"  {result.detail}" if result.ok and result.detail else ""
        click.echo(f"[{done:>3}/{len(items)}] {status} {result.item.id} "
                   f"({result.seconds:.1f} s){note}")

    results = run_items_cached(loaded, items, cache, workers=workers, timeout=timeout,
                               on_result=progress)
    failures = [r for r in results if not r.ok]
    total = sum(r.seconds for r in results)
    reused = sum(r.cached for r in results)
    if failures:
        click.echo(f"\n{len(failures)} of {len(results)} item(s) failed:", err=True)
        for result in failures:
            click.echo(f"- {result.item.id}: {result.detail}", err=True)
        sys.exit(1)
    click.echo(f"all {len(results)} item(s) passed ({total:.1f} s of runs"
               + (f", {reused} unchanged since they passed" if reused else "") + ")")


@course.command()
@ROOT
@LESSON
@WORKERS
@TIMEOUT
def record(root: Path | None, lesson_id: str | None, workers: int, timeout: float) -> None:
    """Re-run main.py and the figure scripts; rewrite receipt.json and the figure files."""
    from course.tools.recording import RecordResult
    from course.tools.recording import record as record_all

    loaded = _load(root, lesson_id)

    def progress(result: RecordResult) -> None:
        status = "recorded" if result.ok else "FAIL"
        click.echo(f"{status} {result.lesson_id}/{result.what} ({result.seconds:.1f} s)"
                   f"  {result.detail if result.ok else ''}".rstrip())

    results = record_all(loaded, lesson_id, workers=workers, timeout=timeout,
                         on_result=progress)
    failures = [r for r in results if not r.ok]
    if failures:
        for result in failures:
            click.echo(f"- {result.lesson_id}/{result.what}: {result.detail}", err=True)
        sys.exit(1)
