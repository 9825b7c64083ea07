"""`check`: every code block of a lesson, each run as its own subprocess.

Items: the complete main.py (its output must equal the receipt), the cumulative build of the
steps (run unless it is main.py's first statements, which main.py's run shows), each
experiment appended to main.py, the figure script (its data must equal data.json), each
reference solution against its hidden checks (full marks, in every variant), and each
starter (parses, fails only at a TODO line, scores below full). A function exercise also gets
two cheats graded: ``hardcoded`` (the reference's outputs on the example typed in) and
``variant`` (another variant's reference solution); both must score below full. Every
``counterexamples/*.py`` of an exercise or project must score at most the bound it declares
(course/tools/exercise_items.py grades them, through the grader's algorithm).
"""

from __future__ import annotations

import ast
import json
import shutil
import tempfile
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from course import pysource
from course.checks import ChecksError
from course.model import Course, Exercise, Lesson
from course.tools import exercise_items as graded
from course.tools.check_cache import CheckCache, item_keys
from course.tools.compare import first_difference, output_diff
from course.tools.execute import DEFAULT_TIMEOUT_S, run_python, shared_runs
from course.tools.exercise_items import (  # noqa: F401 - re-exported for callers
    CHECK_SEED,
    grade_submission,
    hardcoded_submission,
)

KINDS = ("main", "build", "experiment", "figure", "solution", "starter", "hardcoded", "variant",
         "counterexample")


@dataclass(frozen=True)
class Item:
    """One runnable thing; ``id`` reads like ``arrays-04/experiment/name-rebinding``."""

    lesson: Lesson
    kind: str
    slug: str = ""
    project: Exercise | None = None
    """A phase's gradable project (graded with the phase's last lesson as ``lesson``)."""
    name: str = ""
    """A counterexample's file name (without .py)."""

    @property
    def id(self) -> str:
        if self.project is not None:
            return "/".join(p for p in (self.project.id, self.kind, self.name) if p)
        return "/".join(p for p in (self.lesson.id, self.kind, self.slug, self.name) if p)


@dataclass(frozen=True)
class ItemResult:
    item: Item
    ok: bool
    seconds: float
    detail: str = ""
    cached: bool = False
    """Passed before with the same inputs (``check_cache``): not run this time."""


def plan(course: Course, lesson_id: str | None = None) -> list[Item]:
    """Every item of every lesson (or of one lesson), in a stable order."""
    lessons = [x for x in course.lessons() if lesson_id in (None, x.id)]
    items: list[Item] = []
    if lesson_id is None or lesson_id.startswith("project."):
        for phase in course.phases:
            project = phase.project.exercise if phase.project else None
            if project is not None and phase.lessons and lesson_id in (None, project.id):
                items += [Item(phase.lessons[-1], kind, project.slug, project)
                          for kind in ("solution", "starter", "hardcoded")]
                items += [Item(phase.lessons[-1], "counterexample", project.slug, project,
                               name) for name in _counterexample_names(project)]
    for lesson in lessons:
        items += [Item(lesson, "main"), Item(lesson, "build")]
        items += [Item(lesson, "experiment", e.slug) for e in lesson.experiments]
        items.append(Item(lesson, "figure"))
        items += [Item(lesson, "solution", e.slug) for e in lesson.exercises]
        items += [Item(lesson, "starter", e.slug) for e in lesson.exercises]
        items += [Item(lesson, "hardcoded", e.slug) for e in lesson.exercises if e.function]
        items += [Item(lesson, "variant", e.slug) for e in lesson.exercises
                  if len(e.variants) > 1]
        items += [Item(lesson, "counterexample", e.slug, name=name) for e in lesson.exercises
                  for name in _counterexample_names(e)]
    return items


def _counterexample_names(exercise: Exercise) -> list[str]:
    folder = exercise.checks_path.parent / "counterexamples"
    return sorted(p.stem for p in folder.glob("*.py")) if folder.is_dir() else []


def _exercise(item: Item) -> Exercise:
    if item.project is not None:
        return item.project
    return next(e for e in item.lesson.exercises if e.slug == item.slug)


def _write(folder: Path, code: str) -> Path:
    path = folder / "main.py"
    path.write_text(code, encoding="utf-8")
    return path


def _check_main(item: Item, tmp: Path, timeout: float) -> tuple[bool, str, float]:
    lesson = item.lesson
    run = run_python([str(lesson.main_path)], cwd=lesson.dir.parent.parent.parent,
                     timeout=timeout)
    if not run.ok:
        return False, f"code/main.py failed: {run.describe_failure()}", run.seconds
    if lesson.receipt is None:
        return False, ("no receipt.json: run `pathways course record --lesson "
                       f"{lesson.id}`"), run.seconds
    diff = output_diff(lesson.receipt.output, run.stdout)
    if diff:
        return False, ("printed output differs from receipt.json (if the change is intended, "
                       f"run `pathways course record --lesson {lesson.id}`):\n{diff}"), run.seconds
    return True, "", run.seconds


def _leading_statements_of_main(lesson: Lesson) -> int:
    """How many statements the steps appended have, when they are main.py's first statements
    (the same syntax trees: comments, blank lines and the region markers aside); 0 when they
    are not. Then main.py's run (the ``main`` item) has run the cumulative build already, as
    its first part; code outside the steps between them makes it a program of its own."""
    try:
        main = pysource.parse(lesson.main_code).body
        steps = pysource.parse(lesson.cumulative_code).body
    except SyntaxError:
        return 0
    same = len(steps) <= len(main) and all(
        ast.dump(a) == ast.dump(b) for a, b in zip(steps, main, strict=False))
    return len(steps) if same else 0


def _check_build(item: Item, tmp: Path, timeout: float) -> tuple[bool, str, float]:
    leading = _leading_statements_of_main(item.lesson)
    if leading:
        return True, (f"the steps appended are code/main.py's first {leading} statements: "
                      "main.py's run runs them"), 0.0
    return _check_program(item.lesson.cumulative_code, "the cumulative build of the steps",
                          tmp, timeout)


def _check_program(code: str, what: str, tmp: Path, timeout: float) -> tuple[bool, str, float]:
    run = run_python([str(_write(tmp, code))], cwd=tmp, timeout=timeout)
    return run.ok, "" if run.ok else f"{what} failed: {run.describe_failure()}", run.seconds


def _check_figure(item: Item, tmp: Path, timeout: float) -> tuple[bool, str, float]:
    figure = item.lesson.figure
    copy = tmp / "figure"
    shutil.copytree(figure.script_path.parent, copy,
                    ignore=shutil.ignore_patterns("data.json", "figure.png", "__pycache__"))
    run = run_python([str(copy / figure.script_path.name)], cwd=copy, timeout=timeout)
    if not run.ok:
        return False, f"figure/make_figure.py failed: {run.describe_failure()}", run.seconds
    if not figure.data_path.is_file():
        return False, ("no figure/data.json recorded: run `pathways course record --lesson "
                       f"{item.lesson.id}`"), run.seconds
    fresh_path = copy / "data.json"
    if not fresh_path.is_file():
        return False, ("figure/make_figure.py wrote no data.json next to itself (it must "
                       "write data.json and figure.png into its own folder)"), run.seconds
    recorded = json.loads(figure.data_path.read_text(encoding="utf-8"))
    fresh = json.loads(fresh_path.read_text(encoding="utf-8"))
    if not (copy / "figure.png").is_file():
        return False, "figure/make_figure.py wrote no figure.png", run.seconds
    found = first_difference(recorded.get("data"), fresh.get("data"),
                             values=not recorded.get("measured", False))
    if found:
        return False, (f"figure data differ from figure/data.json at {found} (run `pathways "
                       f"course record --lesson {item.lesson.id}` if intended)"), run.seconds
    return True, "", run.seconds


_GRADED = {
    "solution": lambda i, t, s: graded.check_solution(i.lesson, _exercise(i), t, s),
    "starter": lambda i, t, s: graded.check_starter(i.lesson, _exercise(i), t, s),
    "hardcoded": lambda i, t, s: graded.check_hardcoded(i.lesson, _exercise(i), t, s),
    "variant": lambda i, t, s: graded.check_variant(i.lesson, _exercise(i), t, s),
    "counterexample": lambda i, t, s: graded.check_counterexample(i.lesson, _exercise(i),
                                                                  i.name, t, s),
}


def run_item(item: Item, timeout: float = DEFAULT_TIMEOUT_S) -> ItemResult:
    """Run one item in a private temporary folder."""
    lesson = item.lesson
    with tempfile.TemporaryDirectory(prefix="pathways-check-") as name:
        tmp = Path(name)
        if item.kind == "main":
            ok, detail, seconds = _check_main(item, tmp, timeout)
        elif item.kind == "build":
            ok, detail, seconds = _check_build(item, tmp, timeout)
        elif item.kind == "experiment":
            experiment = next(e for e in lesson.experiments if e.slug == item.slug)
            code = f"{lesson.main_code.rstrip()}\n\n\n{experiment.code}"
            ok, detail, seconds = _check_program(code, f"code/main.py + experiments/"
                                                 f"{item.slug}.py", tmp, timeout)
        elif item.kind == "figure":
            ok, detail, seconds = _check_figure(item, tmp, timeout)
        elif item.kind in _GRADED:
            try:
                ok, detail, seconds = _GRADED[item.kind](item, tmp, timeout)
            except ChecksError as exc:
                ok, detail, seconds = False, str(exc), 0.0
        else:
            raise ValueError(f"unknown item kind {item.kind!r}; known: {', '.join(KINDS)}")
    return ItemResult(item, ok, seconds, detail)


def run_items(items: Iterable[Item], *, workers: int = 2, timeout: float = DEFAULT_TIMEOUT_S,
              on_result: Callable[[ItemResult], None] | None = None) -> list[ItemResult]:
    """Run items ``workers`` at a time, their programs forked from a process that has already
    imported JAX (``course.tools.forkserver``; a cold process spends ~1 s on that import)."""
    items = list(items)
    results: list[ItemResult] = []
    # One item runs cold (no fork server), where a cache of its own would serve nothing.
    with ExitStack() as stack:
        if len(items) > 1:
            stack.enter_context(shared_runs())
        pool = stack.enter_context(ThreadPoolExecutor(max_workers=max(1, workers)))
        futures = [pool.submit(run_item, item, timeout) for item in items]
        for future in as_completed(futures):
            result = future.result()
            results.append(result)
            if on_result is not None:
                on_result(result)
    order = {item.id: index for index, item in enumerate(items)}
    return sorted(results, key=lambda r: order[r.item.id])


def run_items_cached(course: Course, items: Iterable[Item], cache: CheckCache | None, *,
                     workers: int = 2, timeout: float = DEFAULT_TIMEOUT_S,
                     on_result: Callable[[ItemResult], None] | None = None) -> list[ItemResult]:
    """``run_items``, skipping items whose last pass had the same key; records new outcomes."""
    items = list(items)
    if cache is None:
        return run_items(items, workers=workers, timeout=timeout, on_result=on_result)
    keys = item_keys(course, [(item.id, item.lesson) for item in items])
    results: list[ItemResult] = []
    to_run: list[Item] = []
    for item in items:
        if cache.fresh(item.id, keys[item.id]):
            result = ItemResult(item, True, 0.0, "unchanged since it passed", cached=True)
            results.append(result)
            if on_result is not None:
                on_result(result)
        else:
            to_run.append(item)
    ran = run_items(to_run, workers=workers, timeout=timeout, on_result=on_result)
    for result in ran:
        cache.record(result.item.id, keys[result.item.id], result.ok)
    if ran:
        cache.save()
    order = {item.id: index for index, item in enumerate(items)}
    return sorted([*results, *ran], key=lambda r: order[r.item.id])
