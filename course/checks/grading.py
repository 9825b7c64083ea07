"""The one grading algorithm, runner-agnostic: ``course check`` and the grader both use it.

A function exercise's grading: draw the hidden inputs (and any function drawn at grading time)
from a seed, run the reference solution on them with the caller's runner, then judge the
learner's run against it. What runs the programs (a subprocess here, the sandbox in the
worker) is the caller's: ``prepare`` takes it as ``run_reference``, ``judge`` takes what the
learner's run reported. Neither reads a clock, a file or the network.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from course.checks.api import CheckOutcome
from course.checks.builtin import reference_problem, result_titles
from course.checks.forgery import forgery
from course.checks.functions import Call, encode_calls
from course.checks.runner import ChecksError, CheckSuite, run_checks
from course.checks.values import CapturedValues

RunReference = Callable[[str, bytes], CapturedValues]
"""(the reference's whole main.py, the calls file) -> what its run reported."""


@dataclass(frozen=True)
class Prepared:
    """One grading's hidden side: the inputs, the calls file both runs get, the reference's
    outputs on them (None for a values exercise)."""

    variant: dict[str, Any] = field(default_factory=dict)
    inputs: tuple[Call, ...] = ()
    calls: bytes | None = None
    expected: CapturedValues | None = None


def prepare(suite: CheckSuite, variant: Mapping[str, Any], seed: int,
            reference: Callable[[Mapping[str, Any]], str] | None,
            run_reference: RunReference) -> Prepared:
    """Draw the hidden inputs from ``seed`` and run the reference (in ``variant``) on them.

    Raises ChecksError when the exercise has no usable reference: that is the course's fault,
    never the learner's."""
    chosen = dict(variant)
    if suite.function is None:
        return Prepared(chosen)
    if reference is None:
        raise ChecksError(f"{suite.path}: a function exercise without a reference solution")
    inputs = suite.calls(chosen, seed)
    calls = encode_calls(suite.function, inputs, suite.substitutes(chosen, seed))
    expected = run_reference(reference(chosen), calls)
    problem = reference_problem(expected, suite.function)
    if problem:
        raise ChecksError(f"{suite.path.parent.name} {chosen or ''}: {problem}")
    return Prepared(chosen, tuple(inputs), calls, expected)


def judge(suite: CheckSuite, captured: CapturedValues, prepared: Prepared,
          source: str) -> list[CheckOutcome]:
    """Every check's outcome for the learner's run; a program that changes Python or JAX
    (``forgery``) fails them all, with the reason."""
    outcomes = run_checks(suite, captured, expected=prepared.expected, inputs=prepared.inputs,
                          source=source, params=prepared.variant)
    # Parsed only for a program that ran to its end: the checks already fail one that did not,
    # and a file that takes seconds to parse then costs the sandbox, not this process.
    refused = forgery(source) if captured.completed and captured.error is None else None
    if refused is not None:
        return [replace(o, status="failed", points=0.0, feedback=refused) for o in outcomes]
    return earned(suite, outcomes)


UNEARNED = ("Passed, but it earns its points only once {fn} returns the reference's results "
            "on the edge cases or on the drawn inputs: the unfinished starter passes it too.")


def earned(suite: CheckSuite, outcomes: list[CheckOutcome]) -> list[CheckOutcome]:
    """The starter earns 0: while no check that compares results with the reference passes,
    the others (it runs, changes nothing, has the right kind of value, a method rule) pass
    without points, since the unchanged starter passes them too (``course check`` grades
    every starter and requires 0)."""
    if suite.function is None:
        return outcomes
    results = result_titles(suite.function)
    if any(o.name in results and o.status == "passed" for o in outcomes):
        return outcomes
    note = UNEARNED.format(fn=suite.function.function)
    return [replace(o, points=0.0, feedback=note) if o.status == "passed" else o
            for o in outcomes]


def score(outcomes: list[CheckOutcome]) -> float:
    return sum(o.points for o in outcomes)
