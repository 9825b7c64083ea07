"""Grade one job: job in, result out. No database, no queue, no key.

The learner's program runs in the sandbox and only reports values; the checks run here, in
the trusted process, with ``course.checks.run_checks``. Each way a run can end maps to one
outcome with feedback a learner can act on.

A function exercise needs the reference solution's outputs (in the learner's variant) on
hidden inputs drawn from a seed: from the worker's seed pool when it holds enough entries for
this exercise, variant, checks and JAX (one sandboxed run: the learner's), otherwise from a
reference run now, on a seed chosen now (two runs; the pool keeps that report). The learner's
run never sees the reference nor its outputs.

Nothing of the learner's is compiled or parsed here except the sandbox's bounded report: a
syntax error is found by the harness inside the sandbox (a crafted file can cost seconds of
compile time, which must be the sandbox's CPU, not the worker's).
"""

from __future__ import annotations

import logging
import secrets
import signal
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from course.checks import (
    BudgetExceeded,
    CapturedValues,
    ChecksError,
    CheckSuite,
    ValuesError,
    load_suite,
)
from course.checks.builtin import builtin_titles
from course.checks.disclosure import disclosed
from course.checks.functions import encode_calls
from course.checks.grading import Prepared, judge, prepare
from course.variants import default_variant, is_variant
from grader_worker.errors import GraderError, JobError, SandboxUnavailable
from grader_worker.limits import Limits
from grader_worker.reference import (
    drawn,
    pool_key,
    read_report,
    reference_runner,
    withhold_drawn,
)
from grader_worker.runner import SandboxRunner
from grader_worker.sandbox.process import RunOutcome
from grader_worker.seedpool import SeedPool
from grader_worker.target import GradingTarget
from grading_contract.job import Job
from grading_contract.result import CheckResult, Environment, GradingResult

logger = logging.getLogger(__name__)

EXCERPT_CHARS = 8000
CPU_LIMIT_SHARE = 0.9
"""A signal-killed run that used this share of its CPU limit was stopped by the limit."""


ChecksResolver = Callable[[str], "Path | GradingTarget"]


# Errors that mean "the sandbox said no", matched on the program's exception.
_VIOLATIONS: tuple[tuple[str, str, str], ...] = (
    ("", "Read-only file system", "it tried to write outside its own directory; "
     "write files only in the current directory (or /tmp)"),
    ("ConnectionRefusedError", "", "it tried to open a network connection; the grader has no "
     "network, so remove downloads and sockets"),
    ("", "Network is unreachable", "it tried to reach the network; the grader has no network, "
     "so remove downloads and sockets"),
    ("gaierror", "", "it tried to look up a host name; the grader has no network"),
    ("BlockingIOError", "Resource temporarily unavailable", "it started too many processes "
     "or threads; do not spawn processes"),
    ("", "No space left on device", "it wrote more than a run may keep on disk (its "
     "directory and /tmp are small); write less, or nothing at all"),
    ("", "File too large", "it wrote a file larger than a run may write; write less"),
    ("PermissionError", "Operation not permitted", "it made a system call the sandbox forbids "
     "(debugging other processes, kernel keys, mounts, namespaces and the like); remove that "
     "code"),
    ("PermissionError", "", "it tried something the sandbox forbids (another user's "
     "process or file); remove that code"),
)


def grade(job: Job, *, runner: SandboxRunner, checks_for: ChecksResolver,
          ceiling: Limits | None = None, worker: str = "",
          pool: SeedPool | None = None) -> GradingResult:
    """Grade ``job``; any failure of ours becomes ``infrastructure_error`` (retried, never
    charged), any failure of the program becomes a learner-facing outcome. With a ``pool``, a
    function exercise draws its seed and the reference's report from it once it is full
    enough (one sandboxed run), and keeps the report of each reference run it makes."""
    picked = time.time()
    result = GradingResult(job.submission_id, job.attempt, job.exercise_id, "infrastructure_error")
    result.kind = job.kind
    result.timings.queued_s = max(0.0, round(picked - job.enqueued_at, 3))
    try:
        info = runner.info()
        result.environment = Environment(info.python, info.jax, runner.config.platform,
                                         info.device_count, socket.gethostname(), worker)
        found = checks_for(job.exercise_id)
        target = found if isinstance(found, GradingTarget) else GradingTarget(found)
        devices = target.devices
        # the job's ask clipped to the one-device ceiling, then sized for the devices
        limits = Limits.from_job(job.limits, ceiling).for_devices(devices)
        if devices > 1:  # the count this job's runs were given, not the probe's
            result.environment.device_count = devices
        suite = load_suite(target.checks_path)
        result.max_score = suite.max_points
        result.course_version, result.checks_hash = target.course_version, target.checks_hash
        if job.checks_hash and target.checks_hash and job.checks_hash != target.checks_hash:
            raise GraderError(f"this worker's checks for {job.exercise_id} "
                              f"({target.checks_hash[:12]}, course {target.course_version}) are "
                              f"not the service's ({job.checks_hash[:12]}, course "
                              f"{job.course_version}): update the worker's course")
        variant = dict(job.variant) or default_variant(target.params or {})
        if target.params is not None and not is_variant(target.params, variant):
            raise JobError(f"variant {job.variant} is not one of {job.exercise_id}'s")
        result.variant = variant
        if job.kind == "run":
            return _finish(_run_only(job, runner, suite, limits, result, target, variant,
                                     devices), picked)
        prepared = _hidden_side(job, suite, target, variant, runner, limits, result,
                                info.jax, pool)
        start = time.monotonic()
        run = runner.run(job.source, suite.names, limits, prepared.calls, devices)
        result.timings.run_s = round(time.monotonic() - start, 3)
        _excerpts(run, result)
        _interpret(run, limits, suite, result, prepared, job.source, withhold=pool is not None)
    except (GraderError, ChecksError, OSError) as exc:
        logger.exception("grading failed for infrastructure reasons",
                         extra={"submission_id": job.submission_id, "attempt": job.attempt})
        result.outcome = "infrastructure_error"
        result.score = 0.0
        result.feedback = ("The grader could not run your submission (a problem on our side, "
                           f"not in your code: {type(exc).__name__}: {exc}). It will be retried; "
                           "it does not count as an attempt.")
        if isinstance(exc, JobError):
            result.feedback = f"The grading job was malformed: {exc}"
    return _finish(result, picked)


def _hidden_side(job: Job, suite: CheckSuite, target: GradingTarget, variant: dict[str, Any],
                 runner: SandboxRunner, limits: Limits, result: GradingResult,
                 jax_version: str, pool: SeedPool | None) -> Prepared:
    """The hidden inputs and the reference's outputs on them: drawn from the pool once it
    holds enough for this key, else from a seed chosen now and a reference run now (whose
    validated report the pool keeps). Sets ``result.seed`` for a function exercise."""
    function = suite.function is not None
    key = pool_key(job.exercise_id, target, variant, runner, jax_version) if function else None
    entry = pool.draw(key) if pool is not None and key is not None else None
    if function:
        result.seed = entry.seed if entry else secrets.randbelow(2**31)
    reports: list[bytes] = []
    run_reference = reference_runner(runner, limits, job.submission_id, target.devices, reports)
    if pool is not None and key is not None and entry is not None:
        pooled_key, seed = key, entry.seed
        run_reference = drawn(entry, limits, run_reference,
                              lambda: pool.discard(pooled_key, seed))
    prepared = prepare(suite, variant, result.seed or 0, target.reference, run_reference)
    if pool is not None and key is not None and reports:  # a reference run, validated
        pool.add(key, result.seed or 0, prepared.calls, reports[-1])
    return prepared


RUN_CHECK = "main.py runs to its end (its own prints and asserts on the lesson's example)"
VISIBLE_PREFIX = "the lesson's"
"""A hidden input whose label starts so is the lesson's own example (its ``x``, shown in the
lesson): the one kind of input a "Run" may call the learner's function on."""


def _run_only(job: Job, runner: SandboxRunner, suite: CheckSuite, limits: Limits,
              result: GradingResult, target: GradingTarget,
              variant: dict[str, Any], devices: int = 1) -> GradingResult:
    """The learner's "Run": main.py as it is, in the same sandbox and limits, on the visible
    examples only: its own prints and asserts, and for a function exercise the calls on the
    lesson's own inputs (``VISIBLE_PREFIX``), compared with the reference. No other input is
    drawn, no other check is shown, and nothing is scored."""
    visible = _visible(suite, target, variant, runner, limits, job, devices)
    start = time.monotonic()
    run = runner.run(job.source, suite.names, limits, visible.calls if visible else None,
                     devices)
    result.timings.run_s = round(time.monotonic() - start, 3)
    _excerpts(run, result)
    _interpret(run, limits, suite, result, None, job.source)
    if visible is not None and result.outcome == "graded":
        captured = read_report(run, limits)
        result.checks += _visible_checks(suite, captured, visible, job.source)
    result.score = result.max_score = 0.0
    return result


def _visible(suite: CheckSuite, target: GradingTarget, variant: dict[str, Any],
             runner: SandboxRunner, limits: Limits, job: Job,
             devices: int = 1) -> Prepared | None:
    """The lesson's own inputs and the reference's outputs on them (None: a values exercise,
    one with functions drawn at grading time, or one without such inputs)."""
    spec = suite.function
    if spec is None or spec.substitutes or target.reference is None:
        return None
    inputs = tuple(c for c in suite.calls(variant, 0) if c.label.startswith(VISIBLE_PREFIX))
    if not inputs:
        return None
    calls = encode_calls(spec, inputs, {})
    expected = reference_runner(runner, limits, job.submission_id, devices)(
        target.reference(variant), calls)
    return Prepared(dict(variant), inputs, calls, expected)


def _visible_checks(suite: CheckSuite, captured: CapturedValues, visible: Prepared,
                    source: str) -> list[CheckResult]:
    """The one check a run shows for a function exercise: the learner's function against the
    reference on the lesson's inputs (its feedback names only those inputs)."""
    assert suite.function is not None
    wanted = builtin_titles(suite.function)["edge"]
    shown = f"{suite.function.function} matches the reference on the lesson's example"
    return [CheckResult(shown, o.status, 0.0, 0.0, "" if o.status == "passed" else o.feedback,
                        "visible")
            for o in judge(suite, captured, visible, source) if o.name == wanted]


def _finish(result: GradingResult, picked: float) -> GradingResult:
    result.timings.total_s = round(time.time() - picked, 3)
    return result


def _excerpts(run: RunOutcome, result: GradingResult) -> None:
    for name in ("stdout", "stderr"):
        text = getattr(run, name).decode("utf-8", errors="replace")
        cut = len(text) > EXCERPT_CHARS or getattr(run, f"{name}_truncated")
        setattr(result, name, text[:EXCERPT_CHARS])
        result.truncated[name] = bool(cut)


def _interpret(run: RunOutcome, limits: Limits, suite: CheckSuite,
               result: GradingResult, prepared: Prepared | None, source: str, *,
               withhold: bool = False) -> None:
    """The run's outcome; ``prepared`` None: a "Run" (``_run_only``), judged by no check.
    ``withhold``: a worker with a seed pool, where drawn inputs recur (``withhold_drawn``)."""
    if run.setup_failed:  # told by bwrap's status descriptor, never by the program's output
        raise SandboxUnavailable(run.stderr.decode(errors="replace")[:500])
    stopped = _limit_outcome(run, limits)
    if stopped is not None:
        result.outcome, result.feedback = stopped
        return
    try:
        captured = read_report(run, limits)
    except BudgetExceeded as exc:  # the trusted side's own limit: end the job, not charged
        logger.error("grading report past the trusted budget", extra={"error": str(exc)})
        result.outcome = "not_gradable"
        result.feedback = ("The grader could not read your program's results within its own "
                           "time budget (a limit of the grader, not of your program). This "
                           "submission is not graded and does not count as an attempt; print "
                           "less and keep the checked values small, then submit again.")
        return
    except ValuesError:
        sig = run.signal
        result.outcome = "sandbox_violation"
        how = f"it was killed by signal {sig}" if sig else f"it exited with status {run.returncode}"
        result.feedback = ("Your program ended before the grader could read its results "
                           f"({how}). Do not call os._exit, kill processes or close the "
                           "grader's files; let the program run to its end.")
        return
    if prepared is None:
        ok = not _program_error(captured, result)
        result.checks = [CheckResult(RUN_CHECK, "passed" if ok else "failed", 0.0, 0.0,
                                     "" if ok else result.feedback, "visible")]
        if ok:
            result.outcome = "graded"
            result.feedback = "Your program ran to its end."
        return
    _from_captured(captured, suite, result, prepared, source, withhold)


def _limit_outcome(run: RunOutcome, limits: Limits) -> tuple[str, str] | None:
    """(outcome, feedback) when a limit stopped the run, in the order they are told apart;
    a wall clock that ran out before the program's own CPU did is the host's, never charged."""
    if run.oom_killed:
        return "memory_limit", (f"Your program used more than the {limits.memory_mb} MB memory "
                                "limit and was stopped. Use smaller arrays or free large ones.")
    if run.output_exceeded:
        return "output_limit", (f"Your program printed more than {limits.output_bytes} bytes "
                                "and was stopped. Print less (no printing inside big loops).")
    if run.timed_out and not _cpu_spent(run, limits):
        # The wall clock ran out before the program's own CPU time (its cgroup's) reached the
        # CPU limit: a starved host or a program that waits; never charged, retried.
        return "host_timeout", (
            f"Your program did not finish within {limits.wall_s:g} seconds "
            f"although it used only {run.cpu_s or 0:.1f} of its {limits.cpu_s} "
            "CPU seconds: the grader was busy, or the program waited (a long "
            "sleep or input()). It will be retried; it does not count as an attempt.")
    if run.timed_out:
        return "timeout", (f"Your program used its {limits.cpu_s} CPU seconds without "
                           f"finishing within {limits.wall_s:g} seconds and was stopped. "
                           + _look_for(run, limits))
    if _cpu_limit_hit(run, limits):
        return "timeout", (f"Your program used more than {limits.cpu_s} CPU seconds and was "
                           "stopped. " + _look_for(run, limits))
    if run.values_exceeded:
        return "sandbox_violation", ("Your program's values were too large to check; keep "
                                     "arrays small.")
    return None


MEMORY_NOTED = 0.5
"""A timed-out run that held this share of its memory limit is told so: the kernel's time
making room for a program's new memory is its CPU time, so a program that allocates fast can
run out of CPU before it reaches its memory limit (test_hostile's memory_bomb, on a host
whose free memory is page cache)."""


def _look_for(run: RunOutcome, limits: Limits) -> str:
    held = (run.peak_memory_bytes or 0) / (1024 * 1024)
    limit = min(limits.memory_mb, limits.data_mb)
    if held >= MEMORY_NOTED * limit:
        return (f"It held {held:.0f} MB of its {limit} MB memory limit by then: look for "
                "arrays far larger than the exercise needs, kept alive in a loop.")
    return ("Look for an endless loop or a computation far larger than the exercise needs.")


def _cpu_spent(run: RunOutcome, limits: Limits) -> bool:
    """The run's own CPU time (its cgroup's accounting) reached the CPU limit."""
    return run.cpu_s is not None and run.cpu_s >= CPU_LIMIT_SHARE * limits.cpu_s


def _cpu_limit_hit(run: RunOutcome, limits: Limits) -> bool:
    """RLIMIT_CPU ended the run: SIGXCPU at the soft limit, or SIGKILL at the hard one (a
    program that ignores SIGXCPU). A SIGKILL counts only when the run's CPU time reached the
    limit, so a program that kills itself is not a timeout."""
    sig = run.signal
    if sig == signal.SIGXCPU and not run.values:
        return True
    if sig in (signal.SIGXCPU, signal.SIGKILL) and run.cpu_s is not None:
        return run.cpu_s >= CPU_LIMIT_SHARE * limits.cpu_s
    return False


def _from_captured(captured: CapturedValues, suite: CheckSuite, result: GradingResult,
                   prepared: Prepared, source: str, withhold: bool = False) -> None:
    outcomes = judge(suite, captured, prepared, source)
    result.checks = [CheckResult(o.name, o.status, o.points, o.max_points,
                                 o.feedback if o.visible or o.status == "passed"
                                 else _hidden_feedback(o.status),
                                 "visible" if o.visible else "hidden") for o in outcomes]
    if withhold:
        withhold_drawn(result, prepared, disclosed(suite, captured, prepared, source, outcomes))
    if _program_error(captured, result):
        return
    result.outcome = "graded"
    result.score = sum(c.points for c in result.checks)
    failed = [c for c in result.checks if c.status != "passed"]
    if not failed:
        result.feedback = f"All {len(result.checks)} checks passed."
    else:
        result.feedback = (f"{len(result.checks) - len(failed)} of {len(result.checks)} checks "
                           f"passed ({result.score:g} of {result.max_score:g} points). "
                           "See each failed check below.")


def _program_error(captured: CapturedValues, result: GradingResult) -> bool:
    """Set the outcome and feedback of a program that stopped with an error; False if none."""
    error = captured.error
    if error is None:
        return False
    if error.type == "SyntaxError":
        result.outcome = "syntax_error"
        result.feedback = (f"main.py has a syntax error: {error.describe()}. Fix it and "
                           "resubmit.")
        return True
    if error.type == "MemoryError":
        result.outcome = "memory_limit"
        result.feedback = ("Your program ran out of memory (MemoryError at "
                           f"{error.describe()}). Use smaller arrays.")
        return True
    for type_name, message, why in _VIOLATIONS:
        if (not type_name or type_name == error.type) and message in error.message:
            result.outcome = "sandbox_violation"
            result.feedback = (f"The grader's sandbox stopped your program: {why}. "
                               f"It stopped at {error.describe()}.")
            return True
    result.outcome = "exception"
    result.feedback = (f"Your program raised an exception: {captured.stopped()}. "
                       "Run `python main.py` locally, fix that line, and resubmit. "
                       "No points are given for a program that does not run to its end.")
    return True


def _hidden_feedback(status: str) -> str:
    return ("A hidden check failed: reread the exercise prompt and test the unchanged "
            "values too." if status == "failed" else "A hidden check could not run.")
