"""``course check``'s exercise items: the reference at full marks, and every cheat below.

Each is graded through ``course.checks.grading`` (the grader's algorithm), with the programs
run here as subprocesses instead of in the sandbox. A function exercise's cheats: the starter
(which must score 0, every check titled in plain words), ``hardcoded`` (the reference's
outputs on the example typed in), ``variant`` (another variant's reference) and the author's
``counterexamples/*.py``, each under the score it declares.
"""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from course import pysource
from course.checks import (
    HARNESS_PATH,
    CapturedValues,
    CheckOutcome,
    ChecksError,
    CheckSuite,
    ValuesError,
    hardcoded_source,
    load_suite,
    read_values,
    reference_problem,
)
from course.checks.grading import Prepared, judge, prepare, score
from course.devices import device_env
from course.model import Exercise, Lesson
from course.submission import submission_for
from course.tools.execute import DEFAULT_TIMEOUT_S, RunResult, run_python
from course.variants import render

CHECK_SEED = 0
"""``course check`` draws its hidden inputs from a fixed seed, so a failure reproduces."""
Outcome = tuple[bool, str, float]


def _harness(code: str, suite: CheckSuite, calls: bytes | None, folder: Path,
             timeout: float, devices: int = 1) -> tuple[CapturedValues, RunResult]:
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / "main.py"
    program.write_text(code, encoding="utf-8")
    report = folder / "values.bin"
    extra: list[str] = []
    if calls is not None:
        (folder / "calls.bin").write_bytes(calls)
        extra = ["--calls", str(folder / "calls.bin")]
    run = run_python([str(HARNESS_PATH), "--names", ",".join(suite.names), *extra, "--out",
                      str(report), str(program)], cwd=folder, timeout=timeout,
                     extra_env=device_env(devices))
    payload = report.read_bytes() if report.is_file() else b""
    return read_values(payload), run


_REFERENCES: dict[str, tuple[CapturedValues, RunResult]] = {}
_RUNNING: dict[str, threading.Lock] = {}
_REFERENCES_LOCK = threading.Lock()


def _reference(code: str, suite: CheckSuite, calls: bytes, folder: Path,
               timeout: float, devices: int = 1) -> tuple[CapturedValues, RunResult]:
    """The reference's values on ``calls``, run once per process: every item of one exercise
    grades against the same (variant, seed) inputs. An item that needs a reference another
    item is running waits for that run (items start side by side: a project's solution and
    starter would each run its training otherwise). Only a clean run is kept, so a broken
    reference is reported by every item that needs it."""
    key = hashlib.sha256(b"\0".join(
        [code.encode(), ",".join(suite.names).encode(), calls, str(devices).encode()])
    ).hexdigest()
    with _REFERENCES_LOCK:
        gate = _RUNNING.setdefault(key, threading.Lock())
    with gate:
        with _REFERENCES_LOCK:
            found = _REFERENCES.get(key)
        if found is not None:
            return found
        expected, run = _harness(code, suite, calls, folder, timeout, devices)
        if suite.function is None or reference_problem(expected, suite.function) is None:
            with _REFERENCES_LOCK:
                _REFERENCES[key] = expected, run
    return expected, run


def _prepared(suite: CheckSuite, exercise: Exercise, lesson: Lesson | None, variant: dict,
              seed: int, folder: Path, timeout: float) -> tuple[Prepared, RunResult | None]:
    runs: list[RunResult] = []

    def run_reference(code: str, calls: bytes) -> CapturedValues:
        expected, run = _reference(code, suite, calls, folder, timeout, exercise.devices)
        runs.append(run)
        return expected

    def reference(chosen: dict) -> str:
        if lesson is None:
            raise ValueError("a function exercise is graded against its lesson's reference")
        return submission_for(lesson, exercise, exercise.for_variant(chosen).solution_code)

    prepared = prepare(suite, variant, seed, reference, run_reference)
    return prepared, (runs[0] if runs else None)


def grade_submission(code: str, exercise: Exercise, tmp: Path, timeout: float, *,
                     lesson: Lesson | None = None, variant: dict | None = None,
                     seed: int = CHECK_SEED, reuse_reference: bool = False,
                     ) -> tuple[list[CheckOutcome], CapturedValues, RunResult]:
    """Run ``code`` under the harness and grade it as the grader does (minus the sandbox).

    A function exercise needs ``lesson``: its reference (in ``variant``) runs first, on the
    same hidden inputs. ``reuse_reference``: when ``code`` is that reference, grade its own
    run instead of running it again (determinism is shown once per exercise)."""
    suite = load_suite(exercise.checks_path)
    chosen = variant if variant is not None else (exercise.variants or [{}])[0]
    prepared, reference_run = _prepared(suite, exercise, lesson, chosen, seed,
                                        tmp / "reference", timeout)
    reference = (submission_for(lesson, exercise, exercise.for_variant(chosen).solution_code)
                 if lesson is not None and suite.function is not None else None)
    if reuse_reference and code == reference and prepared.expected is not None \
            and reference_run is not None:
        captured, run = prepared.expected, reference_run
    else:
        captured, run = _harness(code, suite, prepared.calls, tmp / "learner", timeout,
                                 exercise.devices)
    return judge(suite, captured, prepared, code), captured, run


def check_solution(lesson: Lesson, exercise: Exercise, tmp: Path, timeout: float) -> Outcome:
    """The reference solution scores full marks, in every variant (graded as a learner's run
    in the first variant; in the others its reference run is graded)."""
    seconds = 0.0
    variants = exercise.variants or [{}]
    for index, variant in enumerate(variants):
        code = submission_for(lesson, exercise, exercise.for_variant(variant).solution_code)
        try:
            outcomes, captured, run = grade_submission(code, exercise, tmp / str(index), timeout,
                                                       lesson=lesson, variant=variant,
                                                       reuse_reference=index > 0)
        except (ChecksError, ValuesError) as exc:
            return False, str(exc), seconds
        seconds += run.seconds
        problems = [f"{o.name}: {o.feedback}" for o in outcomes if o.status != "passed"]
        if captured.error is not None:
            problems.insert(0, f"the reference solution {captured.stopped()}")
        if problems:
            return False, (f"reference solution {variant or ''} scores {score(outcomes):g}/"
                           f"{exercise.max_points:g}:\n  " + "\n  ".join(problems)), seconds
    shown = f" in all {len(variants)} variants" if len(variants) > 1 else ""
    return True, f"{exercise.max_points:g}/{exercise.max_points:g}{shown}", seconds


def at_most(lesson: Lesson, exercise: Exercise, tmp: Path, timeout: float, program: str,
            what: str, bound: float | None = None, variant: dict | None = None) -> Outcome:
    """The whole ``program`` scores at most ``bound`` (None: below full marks)."""
    try:
        outcomes, _, run = grade_submission(program, exercise, tmp, timeout, lesson=lesson,
                                            variant=variant)
    except (ChecksError, ValuesError) as exc:
        return False, str(exc), 0.0
    got = score(outcomes)
    if (got > bound) if bound is not None else (got >= exercise.max_points):
        failed = "; ".join(o.name for o in outcomes if o.status != "passed") or "none"
        limit = f"more than its bound {bound:g}" if bound is not None else "full marks"
        return False, (f"{what} scores {limit} ({got:g}/{exercise.max_points:g}): the checks "
                       f"reward an answer that does not do the exercise (failed: {failed})"
                       ), run.seconds
    return True, f"{what} scores {got:g}/{exercise.max_points:g}", run.seconds


def hardcoded_submission(lesson: Lesson, exercise: Exercise, variant: dict, tmp: Path,
                         timeout: float = DEFAULT_TIMEOUT_S) -> str:
    """A cheat's main.py: the reference's outputs on the first (example) input, typed in.

    Raises ChecksError when the reference itself does not run."""
    suite = load_suite(exercise.checks_path)
    if suite.function is None:
        raise ChecksError(f"{exercise.id} is not a function exercise")
    prepared, _ = _prepared(suite, exercise, lesson, variant, CHECK_SEED, tmp, timeout)
    assert prepared.expected is not None
    return submission_for(lesson, exercise, hardcoded_source(suite.function, prepared.expected))


def check_hardcoded(lesson: Lesson, exercise: Exercise, tmp: Path, timeout: float) -> Outcome:
    """The reference's outputs on the first (example) input, typed in, score below full."""
    variant = exercise.variants[0] if exercise.variants else {}
    try:
        code = hardcoded_submission(lesson, exercise, variant, tmp / "example", timeout)
    except (ChecksError, ValuesError) as exc:
        return False, str(exc), 0.0
    return at_most(lesson, exercise, tmp / "graded", timeout, code, "a hard-coded answer",
                   variant=variant)


def check_variant(lesson: Lesson, exercise: Exercise, tmp: Path, timeout: float) -> Outcome:
    """Variant 0's reference solution, graded as variant 1, scores below full."""
    mine, theirs = exercise.variants[1], exercise.variants[0]
    code = submission_for(lesson, exercise, exercise.for_variant(theirs).solution_code)
    return at_most(lesson, exercise, tmp, timeout, code,
                   f"the {theirs} answer graded as {mine}", variant=mine)


def check_starter(lesson: Lesson, exercise: Exercise, tmp: Path, timeout: float) -> Outcome:
    try:
        pysource.parse(exercise.starter_code, filename="starter.py")
    except SyntaxError as exc:
        return False, f"starter.py line {exc.lineno}: does not parse: {exc.msg}", 0.0
    code = submission_for(lesson, exercise, exercise.starter_code)
    try:
        outcomes, captured, run = grade_submission(code, exercise, tmp, timeout, lesson=lesson)
    except (ChecksError, ValuesError) as exc:
        return False, str(exc), 0.0
    got, error = score(outcomes), captured.error
    if error is not None and "TODO" not in error.text:
        return False, (f"main.py + starter.py stopped at {error.describe()}, a line without "
                       "a TODO: the starter must fail only where the learner has work to do"
                       ), run.seconds
    if got > 0:
        earning = "; ".join(f"{o.name} ({o.points:g})" for o in outcomes if o.points > 0)
        return False, (f"the unchanged starter scores {got:g}/{exercise.max_points:g}, not 0: "
                       f"a check it passes must earn nothing (earned: {earning})"), run.seconds
    unnamed = [o.name for o in outcomes if not o.visible or not learner_facing(o.name)]
    if unnamed:
        return False, ("every check needs a visible title in plain words (no backticks or "
                       "Markdown, a sentence after the function's name): "
                       f"{'; '.join(unnamed)}"), run.seconds
    stopped = f"stops at line {error.line} (TODO)" if error else "runs"
    return True, f"{stopped}, scores 0/{exercise.max_points:g}", run.seconds


_GARBLED = re.compile(r"^(\S+) (\1|its) ")
"""A rule's title after its subject is put in front: "f f is jitted", "f its program"."""


def learner_facing(title: str) -> bool:
    """A check's title as a learner reads it: words, no Markdown the page would show raw, and
    a sentence (a rule's title reads after the function's name)."""
    return (bool(title.strip()) and not any(mark in title for mark in ("`", "**", "__"))
            and not _GARBLED.match(title))


# --- counterexamples ------------------------------------------------------------------------

_BOUND = re.compile(r"^# max-score: *([0-9]+(?:\.[0-9]+)?) *$", re.MULTILINE)
_WHY = re.compile(r"^# why: *(\S.*)$", re.MULTILINE)


@dataclass(frozen=True)
class Counterexample:
    """An author's cheat: the highest score it may get, and why it must not get more."""

    name: str
    code: str
    bound: float
    why: str


def counterexamples(exercise: Exercise) -> list[Counterexample]:
    """``counterexamples/*.py`` beside the exercise's checks.py, in name order."""
    folder = exercise.checks_path.parent / "counterexamples"
    found = []
    for path in sorted(folder.glob("*.py")) if folder.is_dir() else []:
        found.append(read_counterexample(path, exercise))
    return found


def read_counterexample(path: Path, exercise: Exercise) -> Counterexample:
    """Parse the ``# max-score: N`` and ``# why: ...`` header lines (ChecksError if absent)."""
    code = path.read_text(encoding="utf-8")
    bound, why = _BOUND.search(code), _WHY.search(code)
    if bound is None or why is None:
        raise ChecksError(f"{path}: a counterexample starts with `# max-score: N` and "
                          "`# why: ...` lines")
    value = float(bound.group(1))
    if value >= exercise.max_points:
        raise ChecksError(f"{path}: max-score {value:g} is not below the exercise's "
                          f"{exercise.max_points:g} points: a counterexample must lose points")
    return Counterexample(path.stem, code, value, why.group(1).strip())


def check_counterexample(lesson: Lesson, exercise: Exercise, name: str, tmp: Path,
                         timeout: float) -> Outcome:
    """The counterexample ``name`` (rendered in the first variant) scores at most its bound."""
    path = exercise.checks_path.parent / "counterexamples" / f"{name}.py"
    try:
        cheat = read_counterexample(path, exercise)
    except (ChecksError, OSError) as exc:
        return False, str(exc), 0.0
    variant = (exercise.variants or [{}])[0]
    program = submission_for(lesson, exercise, render(cheat.code, variant))
    return at_most(lesson, exercise, tmp, timeout, program, f"counterexample {name} "
                   f"({cheat.why})", cheat.bound, variant)
