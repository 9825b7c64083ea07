"""`check`: every code block of a lesson, each run as its own subprocess.

Items: the complete main.py (its output must equal the receipt), the cumulative build of the
steps, each experiment appended to main.py, the figure script (its data must equal data.json),
each reference solution against its hidden checks (full marks, in every variant), and each
starter (parses, fails only at a TODO line, scores below full). A function exercise also gets
two cheats graded: ``hardcoded`` (the reference's outputs on the example typed in) and
``variant`` (another variant's reference solution); both must score below full.
"""

from __future__ import annotations

import ast
import hashlib
import json
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from course.checks import (
    HARNESS_PATH,
    CapturedValues,
    CheckOutcome,
    ChecksError,
    CheckSuite,
    ValuesError,
    encode_calls,
    hardcoded_source,
    load_suite,
    read_values,
    reference_problem,
)
from course.checks import run_checks as grade
from course.model import Course, Exercise, Lesson
from course.submission import submission_for
from course.tools.check_cache import CheckCache, item_keys
from course.tools.compare import first_difference, output_diff
from course.tools.execute import DEFAULT_TIMEOUT_S, RunResult, child_env, run_python
from course.tools.forkserver import prewarmed

KINDS = ("main", "build", "experiment", "figure", "solution", "starter", "hardcoded", "variant")
CHECK_SEED = 0
"""``course check`` draws its hidden inputs from a fixed seed, so a failure reproduces."""


@dataclass(frozen=True)
class Item:
    """One runnable thing; ``id`` reads like ``arrays-04/experiment/name-rebinding``."""

    lesson: Lesson
    kind: str
    slug: str = ""
    project: Exercise | None = None
    """A phase's gradable project (graded with the phase's last lesson as ``lesson``)."""

    @property
    def id(self) -> str:
        if self.project is not None:
            return f"{self.project.id}/{self.kind}"
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
    if lesson_id is None or lesson_id.startswith("project."):
        for phase in course.phases:
            project = phase.project.exercise if phase.project else None
            if project is not None and phase.lessons and lesson_id in (None, project.id):
                items += [Item(phase.lessons[-1], kind, project.slug, project)
                          for kind in ("solution", "starter", "hardcoded")]
    for lesson in lessons:
        items += [Item(lesson, "main"), Item(lesson, "build")]
        items += [Item(lesson, "experiment", e.slug) for e in lesson.experiments]
        items.append(Item(lesson, "figure"))
        items += [Item(lesson, "solution", e.slug) for e in lesson.exercises]
        items += [Item(lesson, "starter", e.slug) for e in lesson.exercises]
        items += [Item(lesson, "hardcoded", e.slug) for e in lesson.exercises if e.function]
        items += [Item(lesson, "variant", e.slug) for e in lesson.exercises
                  if len(e.variants) > 1]
    return items


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


def _harness(code: str, suite: CheckSuite, calls: bytes | None, folder: Path,
             timeout: float) -> tuple[CapturedValues, RunResult]:
    folder.mkdir(parents=True, exist_ok=True)
    program = _write(folder, code)
    report = folder / "values.bin"
    extra: list[str] = []
    if calls is not None:
        (folder / "calls.bin").write_bytes(calls)
        extra = ["--calls", str(folder / "calls.bin")]
    run = run_python([str(HARNESS_PATH), "--names", ",".join(suite.names), *extra, "--out",
                      str(report), str(program)], cwd=folder, timeout=timeout)
    payload = report.read_bytes() if report.is_file() else b""
    return read_values(payload), run


_REFERENCES: dict[str, tuple[CapturedValues, RunResult]] = {}
_REFERENCES_LOCK = threading.Lock()


def _reference(code: str, suite: CheckSuite, calls: bytes, folder: Path,
               timeout: float) -> tuple[CapturedValues, RunResult]:
    """The reference's values on ``calls``, run once per process: the solution, starter,
    hard-coded and variant items of one exercise grade against the same (variant, seed) inputs.
    Only a clean run is kept, so a broken reference is reported by every item that needs it."""
    key = hashlib.sha256(b"\0".join(
        [code.encode(), ",".join(suite.names).encode(), calls])).hexdigest()
    with _REFERENCES_LOCK:
        found = _REFERENCES.get(key)
    if found is not None:
        return found
    expected, run = _harness(code, suite, calls, folder, timeout)
    if reference_problem(expected, suite.function) is None:
        with _REFERENCES_LOCK:
            _REFERENCES[key] = expected, run
    return expected, run


def grade_submission(code: str, exercise: Exercise, tmp: Path, timeout: float, *,
                     lesson: Lesson | None = None, variant: dict | None = None,
                     seed: int = CHECK_SEED, reuse_reference: bool = False,
                     ) -> tuple[list[CheckOutcome], CapturedValues, RunResult]:
    """Run ``code`` under the harness and grade it, as the grader would (minus the sandbox).

    A function exercise needs ``lesson``: its reference solution (in ``variant``) runs first,
    on the same hidden inputs, and gives the expected outputs. ``reuse_reference``: when
    ``code`` is that reference, grade the reference's own run instead of running it again
    (what a second run adds, that the reference is deterministic, is shown once per exercise).
    """
    suite = load_suite(exercise.checks_path)
    if suite.function is None:
        captured, run = _harness(code, suite, None, tmp / "learner", timeout)
        return grade(suite, captured), captured, run
    if lesson is None:
        raise ValueError("a function exercise is graded against its lesson's reference")
    if variant is not None:
        chosen = variant
    else:
        chosen = exercise.variants[0] if exercise.variants else {}
    inputs = suite.calls(chosen, seed)
    calls = encode_calls(suite.function, inputs)
    reference = submission_for(lesson, exercise, exercise.for_variant(chosen).solution_code)
    expected, reference_run = _reference(reference, suite, calls, tmp / "reference", timeout)
    problem = reference_problem(expected, suite.function)
    if problem:
        raise ChecksError(f"{exercise.id} {chosen or ''}: {problem}")
    if reuse_reference and code == reference:
        captured, run = expected, reference_run
    else:
        captured, run = _harness(code, suite, calls, tmp / "learner", timeout)
    outcomes = grade(suite, captured, expected=expected, inputs=inputs, source=code,
                     params=chosen)
    return outcomes, captured, run


def _check_solution(item: Item, tmp: Path, timeout: float) -> tuple[bool, str, float]:
    """The reference solution scores full marks, in every variant (graded as a learner's run
    in the first variant; in the others its reference run is graded)."""
    exercise = _exercise(item)
    seconds = 0.0
    variants = exercise.variants or [{}]
    for index, variant in enumerate(variants):
        code = submission_for(item.lesson, exercise, exercise.for_variant(variant).solution_code)
        try:
            outcomes, captured, run = grade_submission(code, exercise, tmp / str(index), timeout,
                                                       lesson=item.lesson, variant=variant,
                                                       reuse_reference=index > 0)
        except (ChecksError, ValuesError) as exc:
            return False, str(exc), seconds
        seconds += run.seconds
        problems = [f"{o.name}: {o.feedback}" for o in outcomes if o.status != "passed"]
        if captured.error is not None:
            problems.insert(0, f"the reference solution {captured.stopped()}")
        score = sum(o.points for o in outcomes)
        if problems:
            return False, (f"reference solution {variant or ''} scores {score:g}/"
                           f"{exercise.max_points:g}:\n  " + "\n  ".join(problems)), seconds
    shown = f" in all {len(variants)} variants" if len(variants) > 1 else ""
    return True, f"{exercise.max_points:g}/{exercise.max_points:g}{shown}", seconds


def _below_full(item: Item, tmp: Path, timeout: float, code: str, what: str,
                variant: dict | None = None, whole: bool = False) -> tuple[bool, str, float]:
    """``code`` (appended to main.py unless ``whole``) must score below full marks."""
    exercise = _exercise(item)
    program = code if whole else submission_for(item.lesson, exercise, code)
    try:
        outcomes, _, run = grade_submission(program, exercise, tmp, timeout, lesson=item.lesson,
                                            variant=variant)
    except (ChecksError, ValuesError) as exc:
        return False, str(exc), 0.0
    score = sum(o.points for o in outcomes)
    if score >= exercise.max_points:
        return False, (f"{what} scores full marks ({score:g}/{exercise.max_points:g}): the "
                       "checks reward an answer that does not do the exercise"), run.seconds
    return True, f"{what} scores {score:g}/{exercise.max_points:g}", run.seconds


def hardcoded_submission(lesson: Lesson, exercise: Exercise, variant: dict, tmp: Path,
                         timeout: float = DEFAULT_TIMEOUT_S) -> str:
    """A cheat's main.py: the reference's outputs on the first (example) input, typed in.

    Raises ChecksError when the reference itself does not run.
    """
    suite = load_suite(exercise.checks_path)
    if suite.function is None:
        raise ChecksError(f"{exercise.id} is not a function exercise")
    calls = encode_calls(suite.function, suite.calls(variant, CHECK_SEED))
    reference = submission_for(lesson, exercise, exercise.for_variant(variant).solution_code)
    expected, _ = _reference(reference, suite, calls, tmp, timeout)
    problem = reference_problem(expected, suite.function)
    if problem:
        raise ChecksError(problem)
    return submission_for(lesson, exercise, hardcoded_source(suite.function, expected))


def _check_hardcoded(item: Item, tmp: Path, timeout: float) -> tuple[bool, str, float]:
    """The reference's outputs on the first (example) input, typed in, score below full."""
    exercise = _exercise(item)
    variant = exercise.variants[0] if exercise.variants else {}
    try:
        code = hardcoded_submission(item.lesson, exercise, variant, tmp / "example", timeout)
    except (ChecksError, ValuesError) as exc:
        return False, str(exc), 0.0
    return _below_full(item, tmp / "graded", timeout, code, "a hard-coded answer", variant,
                       whole=True)


def _check_variant(item: Item, tmp: Path, timeout: float) -> tuple[bool, str, float]:
    """Variant 0's reference solution, graded as variant 1, scores below full."""
    exercise = _exercise(item)
    mine, theirs = exercise.variants[1], exercise.variants[0]
    return _below_full(item, tmp, timeout, exercise.for_variant(theirs).solution_code,
                       f"the {theirs} answer graded as {mine}", mine)


def _check_starter(item: Item, tmp: Path, timeout: float) -> tuple[bool, str, float]:
    exercise = _exercise(item)
    try:
        ast.parse(exercise.starter_code, filename="starter.py")
    except SyntaxError as exc:
        return False, f"starter.py line {exc.lineno}: does not parse: {exc.msg}", 0.0
    code = submission_for(item.lesson, exercise, exercise.starter_code)
    try:
        outcomes, captured, run = grade_submission(code, exercise, tmp, timeout,
                                                   lesson=item.lesson)
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
        elif item.kind == "hardcoded":
            ok, detail, seconds = _check_hardcoded(item, tmp, timeout)
        elif item.kind == "variant":
            ok, detail, seconds = _check_variant(item, tmp, timeout)
        else:
            raise ValueError(f"unknown item kind {item.kind!r}; known: {', '.join(KINDS)}")
    return ItemResult(item, ok, seconds, detail)


def run_items(items: Iterable[Item], *, workers: int = 2, timeout: float = DEFAULT_TIMEOUT_S,
              on_result: Callable[[ItemResult], None] | None = None) -> list[ItemResult]:
    """Run items ``workers`` at a time, their programs forked from a process that has already
    imported JAX (``course.tools.forkserver``; a cold process spends ~1 s on that import)."""
    items = list(items)
    results: list[ItemResult] = []
    with prewarmed(child_env()) if len(items) > 1 else nullcontext(), \
            ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
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
