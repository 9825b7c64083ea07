"""The reference side of a grading: its sandboxed runs, its pooled reports, and what feedback
may show of it.

The reference is ours and known to pass, but its report comes from a sandbox like any other
and is read within the run's bounds; a pooled report is read again the same way when drawn.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from course.checks import CapturedValues, ChecksError, CheckSuite, ValuesError, read_values
from course.checks.grading import Prepared, prepare
from grader_worker.limits import Limits
from grader_worker.runner import SandboxRunner
from grader_worker.sandbox.process import RunOutcome
from grader_worker.seedpool import Entry, PoolKey
from grader_worker.seedpool.store import calls_digest
from grader_worker.target import GradingTarget
from grading_contract.result import GradingResult

logger = logging.getLogger(__name__)

REFERENCE_TRIES = 3
"""Runs of the reference solution before its failure counts as an infrastructure error."""
REFERENCE_PAUSE_S = 2.0


def read_report(run: RunOutcome, limits: Limits) -> CapturedValues:
    """The run's report, parsed within the run's bytes and the trusted thread's CPU budget."""
    return read_values(run.values, max_bytes=limits.values_bytes, budget_s=limits.report_cpu_s)


def pool_key(exercise_id: str, target: GradingTarget, variant: dict[str, Any],
             runner: SandboxRunner, jax_version: str) -> PoolKey:
    """The pool an (exercise, variant) grading draws from on this worker's JAX."""
    return PoolKey(target.course_version, exercise_id, variant, target.checks_hash,
                   runner.config.platform, jax_version, target.devices)


def reference_report(suite: CheckSuite, target: GradingTarget, variant: dict[str, Any],
                     seed: int, runner: SandboxRunner,
                     limits: Limits) -> tuple[bytes | None, bytes]:
    """(the calls drawn from ``seed``, the reference's validated report on them): one pool
    entry, made exactly as a grading makes it."""
    reports: list[bytes] = []
    prepared = prepare(suite, variant, seed, target.reference,
                       reference_runner(runner, limits, None, target.devices, reports))
    return prepared.calls, reports[-1]


def drawn(entry: Entry, limits: Limits, run_reference: Callable[[str, bytes], CapturedValues],
          discard: Callable[[], None]) -> Callable[[str, bytes], CapturedValues]:
    """The pooled reference report for ``entry``'s seed, read within the run's bounds like a
    fresh one; an entry whose calls are not the ones its seed draws now, or that no longer
    reads, is discarded and the reference runs instead."""

    def pooled(code: str, calls: bytes) -> CapturedValues:
        if calls_digest(calls) == entry.calls_sha:
            try:
                return read_values(entry.report, max_bytes=limits.values_bytes,
                                   budget_s=limits.report_cpu_s)
            except ValuesError:
                pass
        logger.warning("seed pool entry does not match its seed; the reference runs now",
                       extra={"seed": entry.seed})
        discard()
        return run_reference(code, calls)

    return pooled


def reference_runner(runner: SandboxRunner, limits: Limits, submission_id: object = None,
                      devices: int = 1, reports: list[bytes] | None = None,
                      ) -> Callable[[str, bytes], CapturedValues]:
    """The reference runs sandboxed like a submission (``course.checks.grading.prepare``).

    The reference is ours and known to pass: a run of it that fails (timed out, killed,
    unreadable) failed for the host's reasons (a starved or overloaded machine). It is tried
    again after a pause before giving up as an infrastructure error (retried by the service,
    never charged to the learner)."""

    def run_reference(code: str, calls: bytes) -> CapturedValues:
        for attempt in range(1, REFERENCE_TRIES + 1):
            run = runner.run(code, (), limits, calls, devices)
            try:
                captured = read_report(run, limits)
                if reports is not None:
                    reports.append(run.values)
                return captured
            except ValuesError as exc:
                if attempt == REFERENCE_TRIES:
                    raise ChecksError(
                        f"the reference solution's run failed {attempt} times (last: {exc}; "
                        f"timed out: {run.timed_out}); stderr: "
                        f"{run.stderr.decode(errors='replace')[-500:]}") from exc
                logger.warning("reference run failed; retrying", extra={
                    "submission_id": submission_id, "try": attempt,
                    "timed_out": run.timed_out})
                time.sleep(REFERENCE_PAUSE_S * attempt)
        raise AssertionError("unreachable")

    return run_reference


WITHHELD = ("{check}: it failed {where}. With a seed pool the expected values of drawn inputs "
            "are not shown (other gradings draw the same inputs); the edge cases' feedback shows "
            "them on inputs you can reproduce.")


def withhold_drawn(result: GradingResult, prepared: Prepared, disclosing: set[str]) -> None:
    """Where seeds come from (and go into) the pool, a drawn input recurs across gradings:
    the feedback of a failed check that depends on the reference's outputs on one
    (``disclosing``: course.checks.disclosure) is replaced, so repeated attempts never
    collect the pool's expected outputs, however the check words its feedback."""
    drawn = [c.label for c in prepared.inputs if c.kind == "random"]
    for check in result.checks:
        # A hidden check's feedback is already a fixed text, and its name must stay unshown.
        if check.status != "passed" and check.visibility != "hidden" and check.name in disclosing:
            named = next((label for label in drawn if label in check.feedback), None)
            where = (f"on {named}, an input drawn at grading time" if named
                     else "on inputs drawn at grading time")
            check.feedback = WITHHELD.format(check=check.name, where=where)
