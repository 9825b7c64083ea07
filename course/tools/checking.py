"""`check`: every code block of a lesson, each run as its own subprocess.

Items: the complete main.py (its output must equal the receipt), the cumulative build of the
steps, each experiment appended to main.py, the figure script (its data must equal data.json),
each reference solution against its hidden checks (full marks), and each starter (parses,
fails only at a TODO line, scores below full).
"""

from __future__ import annotations

import ast
import json
import shutil
import tempfile
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from course.checks import (
    HARNESS_PATH,
    CapturedValues,
    CheckOutcome,
    ChecksError,
    ValuesError,
    load_suite,
    read_values,
)
from course.checks import run_checks as grade
from course.model import Course, Exercise, Lesson
from course.submission import submission_for
from course.tools.check_cache import CheckCache, item_keys
from course.tools.compare import first_difference, output_diff
from course.tools.execute import DEFAULT_TIMEOUT_S, RunResult, run_python

KINDS = ("main", "build", "experiment", "figure", "solution", "starter")


@dataclass(frozen=True)
class Item:
    """One runnable thing; ``id`` reads like ``arrays-04/experiment/name-rebinding``."""

    lesson: Lesson
    kind: str
    slug: str = ""

    @property
    def id(self) -> str:
        return "/".join(p for p in (self.lesson.id, self.kind, self.slug) if p)


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
    for lesson in lessons:
        items += [Item(lesson, "main"), Item(lesson, "build")]
        items += [Item(lesson, "experiment", e.slug) for e in lesson.experiments]
        items.append(Item(lesson, "figure"))
        items += [Item(lesson, "solution", e.slug) for e in lesson.exercises]
        items += [Item(lesson, "starter", e.slug) for e in lesson.exercises]
    return items


def _exercise(item: Item) -> Exercise:
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


def grade_submission(code: str, exercise: Exercise, tmp: Path, timeout: float
                     ) -> tuple[list[CheckOutcome], CapturedValues, RunResult]:
    """Run ``code`` under the harness and grade it, as the grader would (minus the sandbox)."""
    suite = load_suite(exercise.checks_path)
    program = _write(tmp, code)
    report = tmp / "values.bin"
    run = run_python([str(HARNESS_PATH), "--names", ",".join(suite.names), "--out",
                      str(report), str(program)], cwd=tmp, timeout=timeout)
    payload = report.read_bytes() if report.is_file() else b""
    captured = read_values(payload)
    return grade(suite, captured), captured, run


def _check_solution(item: Item, tmp: Path, timeout: float) -> tuple[bool, str, float]:
    exercise = _exercise(item)
    code = submission_for(item.lesson, exercise, exercise.solution_code)
    try:
        outcomes, captured, run = grade_submission(code, exercise, tmp, timeout)
    except (ChecksError, ValuesError) as exc:
        return False, str(exc), 0.0
    problems = [f"{o.name}: {o.feedback}" for o in outcomes if o.status != "passed"]
    if captured.error is not None:
        problems.insert(0, f"the reference solution {captured.stopped()}")
    score = sum(o.points for o in outcomes)
    if problems:
        return False, (f"reference solution scores {score:g}/{exercise.max_points:g}:\n  "
                       + "\n  ".join(problems)), run.seconds
    return True, f"{score:g}/{exercise.max_points:g}", run.seconds


def _check_starter(item: Item, tmp: Path, timeout: float) -> tuple[bool, str, float]:
    exercise = _exercise(item)
    try:
        ast.parse(exercise.starter_code, filename="starter.py")
    except SyntaxError as exc:
        return False, f"starter.py line {exc.lineno}: does not parse: {exc.msg}", 0.0
    code = submission_for(item.lesson, exercise, exercise.starter_code)
    try:
        outcomes, captured, run = grade_submission(code, exercise, tmp, timeout)
    except (ChecksError, ValuesError) as exc:
        return False, str(exc), 0.0
    score = sum(o.points for o in outcomes)
    error = captured.error
    if error is not None and "TODO" not in error.text:
        return False, (f"main.py + starter.py stopped at {error.describe()}, a line without "
                       "a TODO: the starter must fail only where the learner has work to do"
                       ), run.seconds
    if score >= exercise.max_points:
        return False, (f"the unchanged starter already scores full marks ({score:g}/"
                       f"{exercise.max_points:g}): its checks do not test the exercise"
                       ), run.seconds
    stopped = f"stops at line {error.line} (TODO)" if error else "runs"
    return True, f"{stopped}, scores {score:g}/{exercise.max_points:g}", run.seconds


def run_item(item: Item, timeout: float = DEFAULT_TIMEOUT_S) -> ItemResult:
    """Run one item in a private temporary folder."""
    lesson = item.lesson
    with tempfile.TemporaryDirectory(prefix="pathways-check-") as name:
        tmp = Path(name)
        if item.kind == "main":
            ok, detail, seconds = _check_main(item, tmp, timeout)
        elif item.kind == "build":
            ok, detail, seconds = _check_program(lesson.cumulative_code,
                                                 "the cumulative build of the steps", tmp,
                                                 timeout)
        elif item.kind == "experiment":
            experiment = next(e for e in lesson.experiments if e.slug == item.slug)
            code = f"{lesson.main_code.rstrip()}\n\n\n{experiment.code}"
            ok, detail, seconds = _check_program(code, f"code/main.py + experiments/"
                                                 f"{item.slug}.py", tmp, timeout)
        elif item.kind == "figure":
            ok, detail, seconds = _check_figure(item, tmp, timeout)
        elif item.kind == "solution":
            ok, detail, seconds = _check_solution(item, tmp, timeout)
        elif item.kind == "starter":
            ok, detail, seconds = _check_starter(item, tmp, timeout)
        else:
            raise ValueError(f"unknown item kind {item.kind!r}; known: {', '.join(KINDS)}")
    return ItemResult(item, ok, seconds, detail)


def run_items(items: Iterable[Item], *, workers: int = 2, timeout: float = DEFAULT_TIMEOUT_S,
              on_result: Callable[[ItemResult], None] | None = None) -> list[ItemResult]:
    """Run items ``workers`` at a time (most of each run is importing JAX)."""
    items = list(items)
    results: list[ItemResult] = []
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
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
