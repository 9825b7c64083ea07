"""Method rules judged on what the learner's function did while the harness watched.

``course.checks.behaviour`` reads what JAX traces; these read the rest of the harness's facts
(``course.checks.facts``), measured on the final binding on the hidden inputs:

- jit: the learner's own jitted callable compiled once per distinct signature;
- durations: numbers a clock gave inside the call, and a blocked one: not below the time the
  arguments took to become ready (an unblocked timer stops at dispatch, far below it);
- blocking: the outputs were ready when the function returned, though its arguments were
  still being computed when it started;
- placement: each returned array is committed to the named device;
- observed counts: the traces and callback runs it reports are those the grader counted;
- distinct outputs: no two outputs are equal (one random key reused repeats its numbers).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from course.checks.api import Values
from course.checks.behaviour import _pairs, _rule
from course.checks.functions import Call, Cast, FunctionExercise, Rule


def compile_signature(call: Call, static: Sequence[int] = ()) -> tuple[Any, ...]:
    """What ``jit`` keys its cache on, argument by argument: an array's shape and dtype (a
    cast's, the dtype it arrives in), a static argument's value, a traced Python scalar's type,
    a pytree's structure with its leaves'. Two calls with equal signatures share one
    compilation; the drawn calls' shapes are held to the fixed calls' by it
    (tests/course/test_drawn_shapes.py)."""
    return tuple(_argument(arg, index in static) for index, arg in enumerate(call.args))


def _argument(value: Any, static: bool) -> Any:
    if isinstance(value, Cast):
        return ("cast", np.shape(value.value), value.dtype)
    if hasattr(value, "shape") and hasattr(value, "dtype"):  # NumPy's, JAX's
        return ("array", tuple(value.shape), str(value.dtype))
    if isinstance(value, dict):
        return ("dict", tuple((k, _argument(v, static)) for k, v in sorted(value.items())))
    if isinstance(value, list | tuple):
        return (type(value).__name__, tuple(_argument(v, static) for v in value))
    if static:
        return ("static", value)
    return ("scalar", type(value).__name__)


def compiles_per_signature(why: str, *, static: Sequence[int] = (), function: str = "",
                           points: float = 1.0, key: Callable[[Call, dict], Any] | None = None,
                           title: str = "is your jitted function, compiled once per distinct "
                                        "signature") -> Rule:
    """The final binding of ``function`` is the learner's own jitted callable (their static
    arguments, none added by the grader: ``static`` only says which the exercise asks for),
    and the hidden calls compiled it once per distinct signature. ``key(call, params)``: what
    one of the exercise's calls should compile for, when ``function`` is a helper the learner's
    function calls (bucketed-lengths: one compilation per bucket, not per length)."""

    def judge(v: Values, spec: FunctionExercise) -> str | None:
        name = function or spec.function
        calls = v.captured.calls
        compiled = calls.facts.compiled.get(name) if calls else None
        if compiled is None:
            return f"`{name}` is not a jax.jit-compiled function"
        if key is None:
            wanted = len({compile_signature(c, static) for c, _ in _pairs(v, name)})
        else:
            wanted = len({key(c, v.params) for c in v.inputs})
        if compiled != wanted:
            return (f"the hidden calls compiled `{name}` {compiled} times for {wanted} distinct "
                    "input signatures")
        return None

    return _rule(title, f"Jit it yourself: {why}." if key is None else f"{why}.", judge,
                 points, needs=frozenset({"cache"}), subject=function)


def measured_durations(indices: Sequence[int], why: str, *, first_slower: bool = False,
                       blocked: bool = False, function: str = "") -> Rule:
    """Outputs ``indices`` are durations a clock gave inside this call: positive floats whose
    sum does not exceed the call's own wall time (the harness's clock, outputs blocked); with
    ``first_slower``, the first (which compiles) exceeds the second (which does not); with
    ``blocked``, the first is not below half the seconds the arguments took to become ready
    (the harness makes them wait): a blocked timer covers that wait, an unblocked one stops
    at dispatch, microseconds later. The same durations on every call were typed in."""

    def judge(v: Values, spec: FunctionExercise) -> str | None:
        seen: set[tuple[float, ...]] = set()
        calls = 0
        for call, result in _pairs(v, function or spec.function):
            outputs = result.plain.outputs or ()
            times = [outputs[i].value for i in indices if i < len(outputs)]
            calls += 1
            seen.add(tuple(times))
            if len(times) != len(indices) or not all(
                    isinstance(t, float | int) and not isinstance(t, bool) for t in times):
                return f"on {call.label} outputs {list(indices)} are not numbers of seconds"
            if not all(t > 0.0 for t in times):
                return f"on {call.label} a measured duration is {min(times)!r}, not above 0"
            spent = result.facts.seconds
            if spent is not None and sum(times) > spent:
                return (f"on {call.label} the durations add up to {sum(times):.6f} s, longer "
                        f"than the whole call ({spent:.6f} s): they were not measured")
            if first_slower and times[0] <= times[1]:
                return (f"on {call.label} the first call ({times[0]:.6f} s) was not slower "
                        f"than the later one ({times[1]:.6f} s), though only it compiles")
            waited = result.facts.pending
            if blocked and waited is not None and times[0] < waited / 2:
                return (f"on {call.label} the clock read {times[0]:.6f} s, though the work "
                        f"could not finish before its input was ready, {waited:.6f} s after "
                        "the call started: the clock stopped before the work was done")
        # Durations typed in are the same on every call; a clock never reads the same
        # nanoseconds twice. This holds on any host, however loaded, where the sum test above
        # can be fooled by a slow one (a plausible constant then fits inside a slow call).
        if calls > 1 and len(seen) == 1:
            return (f"the durations are {list(next(iter(seen)))} on all {calls} calls: a "
                    "clock never reads the same twice, so they were typed in, not measured")
        return None

    title = ("returns durations it measured (inside the call, first slower)" if first_slower
             else "returns a duration it measured (inside the call)")
    if blocked:
        title = title.replace("(inside the call", "(after the work finished")
    return _rule(title, f"Measure them: {why}.", judge,
                 needs=frozenset({"pending"}) if blocked else frozenset(), subject=function)


def blocks(indices: Sequence[int], why: str, *, function: str = "") -> Rule:
    """Outputs ``indices`` were ready when the function returned, though each array argument
    was still being computed when it started (the harness's pending inputs): the function
    waited for them (``block_until_ready``)."""

    def judge(v: Values, spec: FunctionExercise) -> str | None:
        for call, result in _pairs(v, function or spec.function):
            placed = result.facts.outputs
            for index in indices:
                ready = placed[index].ready if index < len(placed) else None
                if ready is None:
                    return f"on {call.label} output {index} is not a JAX array"
                if not ready:
                    return (f"on {call.label} output {index} was still being computed when "
                            "the function returned: it never waited for it")
        return None

    return _rule("waits until its results are ready (block_until_ready)",
                 f"Block on the results: {why}.", judge, needs=frozenset({"pending"}),
                 subject=function)


def placed(device: str, why: str, *, function: str = "") -> Rule:
    """Every returned JAX array is committed to ``device`` (``cpu:0``) and only to it: placed
    there by name, not left wherever JAX's default put it."""

    def judge(v: Values, spec: FunctionExercise) -> str | None:
        for call, result in _pairs(v, function or spec.function):
            for index, facts in enumerate(result.facts.outputs):
                if facts.ready is None:
                    continue
                if not facts.committed:
                    return (f"on {call.label} output {index} is not committed to a device: "
                            "nothing placed its inputs by name")
                if facts.devices != (device,):
                    return (f"on {call.label} output {index} is on {', '.join(facts.devices)}"
                            f", not {device}")
        return None

    return _rule(f"returns a result committed to {device}", f"Place it: {why}.", judge,
                 needs=frozenset(), subject=function)


def counts_observed(why: str, *, function: str = "") -> Rule:
    """Outputs 0 and 1 are the traces of the functions the call jitted and the runs of its
    ``jax.debug.callback``s, as wrappers the grader put around ``jax.jit`` and
    ``jax.debug.callback`` counted them during the call."""

    def judge(v: Values, spec: FunctionExercise) -> str | None:
        for call, result in _pairs(v, function or spec.function):
            counted = result.facts.counted
            if counted is None:
                return "the grader has no count of its traces and callbacks"
            outputs = result.plain.outputs or ()
            got = tuple(o.value for o in outputs[:2])
            if got != counted:
                return (f"on {call.label} it returned {got!r}, but during the call JAX traced "
                        f"its jitted functions {counted[0]} times and ran its callbacks "
                        f"{counted[1]} times: the counts must be observed, not computed")
        return None

    return _rule("reports the traces and runs it observed", f"Observe them: {why}.", judge,
                 needs=frozenset({"count"}), subject=function)


def distinct_outputs(why: str, *, function: str = "") -> Rule:
    """No two outputs of a call are equal (independent draws from split keys differ)."""

    def judge(v: Values, spec: FunctionExercise) -> str | None:
        for call, result in _pairs(v, function or spec.function):
            outputs = [np.asarray(o.value) for o in result.plain.outputs or ()]
            for i in range(len(outputs)):
                for j in range(i + 1, len(outputs)):
                    if outputs[i].shape == outputs[j].shape and np.array_equal(outputs[i],
                                                                               outputs[j]):
                        return (f"on {call.label} outputs {i} and {j} are the same numbers: "
                                "they were drawn with the same key")
        return None

    return _rule("draws each output with its own key (no two are equal)",
                 f"One key per draw: {why}.", judge, needs=frozenset(), subject=function)

