"""Which failed checks' feedback discloses the reference's outputs on some of the inputs.

Where a grader keeps a seed pool, a drawn input recurs across gradings, so feedback that shows
the reference's output on one would let repeated attempts collect the pool (docs/SEED_POOL.md).
Whether a feedback text shows it is not read from the text (a check may word it any way, or
name no input): the checks are judged a second time with the reference's outputs on those
inputs changed (every number, every text), and a failed check whose status or feedback is not
the same both times read them. The checks are pure, so nothing else can make the two differ.
What is not changed, and so not withheld: the outputs' shapes, dtypes and kinds (what the
exercise's own description and edge cases show), and the reference's facts (its timings,
placements, traces: not answers).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from course.checks.api import CheckOutcome
from course.checks.grading import Prepared, judge
from course.checks.runner import CheckSuite
from course.checks.values import CallOutputs, CallResult, CapturedValue, CapturedValues


def changed(value: Any) -> Any:
    """``value`` with every element different, same type, shape and dtype (a NaN or an infinity
    becomes 0; a finite x becomes x + 1 + |x|, never x; text gains a character)."""
    if isinstance(value, bool | np.bool_):
        return not value
    if isinstance(value, str):
        return value + "~"
    if isinstance(value, int) and not isinstance(value, bool):
        return value + 1 + abs(value)
    if isinstance(value, float):
        return value + 1.0 + abs(value) if np.isfinite(value) else 0.0
    if isinstance(value, complex):
        return value + 1
    if value is None:
        return None
    array = np.asarray(value)
    kind = array.dtype.kind
    if kind == "b":
        return ~array
    if kind in "iu":
        with np.errstate(over="ignore"):
            return (array + 1 + np.abs(array)).astype(array.dtype)
    if kind in "fc":
        with np.errstate(over="ignore", invalid="ignore"):
            bumped = array + 1 + np.abs(array)
        return np.where(np.isfinite(array), bumped, 0).astype(array.dtype)
    if kind in "US":
        return np.char.add(array, "~" if kind == "U" else b"~")
    return value


def _changed_value(value: CapturedValue) -> CapturedValue:
    if value.kind not in ("array", "scalar"):
        return value
    return replace(value, value=changed(value.value))


def _changed_outputs(outputs: CallOutputs | None) -> CallOutputs | None:
    if outputs is None or outputs.outputs is None:
        return outputs
    return replace(outputs, outputs=tuple(_changed_value(v) for v in outputs.outputs))


def _changed_result(result: CallResult) -> CallResult:
    return replace(result, plain=_changed_outputs(result.plain), jit=_changed_outputs(result.jit))


def with_outputs_changed(prepared: Prepared, kind: str = "random") -> Prepared:
    """``prepared`` with the reference's outputs changed on
    every input of ``kind``; the inputs, and the outputs on the other inputs, as they were."""
    expected = prepared.expected
    if expected is None or expected.calls is None:
        return prepared
    results = tuple(
        _changed_result(result) if index < len(prepared.inputs)
        and prepared.inputs[index].kind == kind else result
        for index, result in enumerate(expected.calls.results))
    calls = replace(expected.calls, results=results)
    return replace(prepared, expected=replace(expected, calls=calls))


def disclosing(outcomes: list[CheckOutcome], again: list[CheckOutcome]) -> set[str]:
    """Names of the failed ``outcomes`` that ``again`` (the same checks judged with outputs
    changed) does not repeat word for word."""
    second = {o.name: (o.status, o.feedback) for o in again}
    return {o.name for o in outcomes
            if o.status != "passed" and second.get(o.name) != (o.status, o.feedback)}


def disclosed(suite: CheckSuite, captured: CapturedValues, prepared: Prepared, source: str,
              outcomes: list[CheckOutcome], kind: str = "random") -> set[str]:
    """Names of the failed checks in ``outcomes`` (``judge``'s, for this run) whose feedback
    depends on the reference's outputs on the inputs of ``kind``."""
    if prepared.expected is None or not any(c.kind == kind for c in prepared.inputs):
        return set()
    return disclosing(outcomes, judge(suite, captured, with_outputs_changed(prepared, kind),
                                      source))
