"""Method rules judged on behaviour: what JAX traced from the object the grader calls.

A rule that matches a name in the source is satisfied by one unused call; these read the
harness's facts instead (``course.checks.facts``), measured on the final binding of the
learner's function on the hidden inputs:

- vectorised: the trace has the same number of equations at every batch size (a Python loop
  unrolls, one copy per row) and no loop or callback primitive;
- loops: a ``scan`` / ``while`` is traced and the trace does not grow with the step count;
- functional update: a ``scatter`` (``x.at[...]``) is traced;
- reverse mode through a loop: the trace holds the loop and its transpose (a reverse scan);
- jit: the learner's own jitted callable compiled once per distinct signature;
- traced by JAX: the function traces (NumPy on a tracer does not) with no callback;
- durations: measured numbers a clock could have given, inside the call the harness timed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from course.checks.api import Values
from course.checks.functions import Call, Cast, FunctionExercise, Rule
from course.checks.values import CallResult

LOOPS = ("scan", "while")
CALLBACKS = ("pure_callback", "io_callback")


def _pairs(v: Values, function: str = "") -> list[tuple[Call, CallResult]]:
    calls = v.captured.calls
    results = calls.results if calls else ()
    return [(c, r) for c, r in zip(v.inputs, results, strict=False)
            if (c.function or v.captured.calls.function) == (function or calls.function)]


def _shape_key(call: Call) -> tuple[Any, ...]:
    """Calls whose arguments have the same ranks and dtypes: a batched program traced for
    any of them has the same equations, whatever the sizes."""
    key: list[Any] = [call.function]
    for arg in call.args:
        value = arg.value if isinstance(arg, Cast) else arg
        if isinstance(value, bool | int | float | str) or value is None:
            key.append("scalar")
        else:
            array = np.asarray(value)
            key.append((array.ndim, str(array.dtype)))
    return tuple(key)


def _traces(v: Values, function: str) -> tuple[list[tuple[Call, Any]], str | None]:
    """(call, jaxpr facts) of every call of ``function``, or why a trace is missing."""
    found = []
    for call, result in _pairs(v, function):
        facts = result.facts.jaxpr
        if facts is None:
            return [], "the grader has no trace of it"
        if facts.error:
            return [], (f"JAX cannot trace it on {call.label} ({facts.error[:200]}): it must be "
                        "written with jax.numpy operations, not NumPy or Python on values")
        found.append((call, facts))
    return found, None


def _constant(traces: Sequence[tuple[Call, Any]]) -> str | None:
    groups: dict[tuple[Any, ...], list[tuple[Call, Any]]] = defaultdict(list)
    for call, facts in traces:
        groups[_shape_key(call)].append((call, facts))
    for members in groups.values():
        small, large = min(members, key=lambda m: m[1].eqns), max(members,
                                                                  key=lambda m: m[1].eqns)
        if small[1].eqns != large[1].eqns:
            return (f"its traced program has {small[1].eqns} operations on {small[0].label} "
                    f"but {large[1].eqns} on {large[0].label}: the program grows with the "
                    "input, as a Python loop unrolled into one copy per element does")
    return None


def _rule(title: str, feedback: str, judge: Callable[[Values, FunctionExercise], str | None],
          points: float = 1.0, needs: frozenset[str] = frozenset({"jaxpr"}),
          subject: str = "") -> Rule:
    return Rule(title, feedback, points=points, judge=judge, needs=needs, subject=subject)


def traced(why: str, *, function: str = "", allow_callbacks: bool = False) -> Rule:
    """JAX traces the function (NumPy on a tracer does not), with no callback to Python."""

    def judge(v: Values, spec: FunctionExercise) -> str | None:
        traces, problem = _traces(v, function or spec.function)
        if problem:
            return problem
        for call, facts in traces:
            if not allow_callbacks and facts.has(*CALLBACKS):
                return f"on {call.label} it calls back into Python (a callback)"
        return None

    return _rule("is traced by JAX, with no callback", f"Write it with JAX: {why}.", judge,
                 subject=function)


def vectorised(why: str, *, function: str = "", allow_loops: bool = False) -> Rule:
    """One batched program: the same equations at every batch size, no loop, no callback."""

    def judge(v: Values, spec: FunctionExercise) -> str | None:
        traces, problem = _traces(v, function or spec.function)
        if problem:
            return problem
        for call, facts in traces:
            if facts.has(*CALLBACKS):
                return f"on {call.label} it calls back into Python (a callback)"
            if not allow_loops and facts.has(*LOOPS):
                return (f"on {call.label} its program holds a loop (lax.map, scan or "
                        "fori_loop): one example after another, not one batched operation")
        return _constant(traces)

    return _rule("is one batched program (its trace does not grow with the batch)",
                 f"Vectorise it: {why}.", judge, subject=function)


def loops(why: str, *, function: str = "") -> Rule:
    """A scan / while is traced, and the trace does not grow with the number of steps."""

    def judge(v: Values, spec: FunctionExercise) -> str | None:
        traces, problem = _traces(v, function or spec.function)
        if problem:
            return problem
        for call, facts in traces:
            if not facts.has(*LOOPS):
                return f"on {call.label} its traced program holds no loop (scan / while)"
        return _constant(traces)

    return _rule("keeps the loop in the compiled program (lax.scan / while)",
                 f"Use a lax loop: {why}.", judge, subject=function)


def functional_update(why: str, *, function: str = "") -> Rule:
    """A ``scatter`` (what ``x.at[...].set/add`` traces to) is in the program."""

    def judge(v: Values, spec: FunctionExercise) -> str | None:
        traces, problem = _traces(v, function or spec.function)
        if problem:
            return problem
        for call, facts in traces:
            if not facts.has("scatter", "dynamic_update_slice"):
                return f"on {call.label} its traced program makes no indexed update (scatter)"
        return None

    return _rule("updates with .at[...] (a scatter in its program)", f"Use `.at[...]`: {why}.",
                 judge, subject=function)


def differentiates_loop(why: str, *, function: str = "") -> Rule:
    """Reverse mode through a loop: the program holds the loop and its transpose (a scan with
    ``reverse=True``, which transposing a forward scan makes)."""

    def judge(v: Values, spec: FunctionExercise) -> str | None:
        traces, problem = _traces(v, function or spec.function)
        if problem:
            return problem
        for call, facts in traces:
            if not facts.has(*LOOPS) or not facts.has("scan[reverse]"):
                return (f"on {call.label} its program never runs the loop backwards: a "
                        "derivative by jax.grad through the loop runs the loop's transpose")
        return None

    return _rule("differentiates through the loop (jax.grad runs it backwards)",
                 f"Use jax.grad: {why}.", judge, subject=function)


def _signature(call: Call, static: Sequence[int]) -> tuple[Any, ...]:
    """What jit keys its cache on: shapes and dtypes, the value of a static argument, the
    type of a traced Python scalar."""
    key: list[Any] = []
    for index, arg in enumerate(call.args):
        value = arg.value if isinstance(arg, Cast) else arg
        if isinstance(value, bool | int | float | str) or value is None:
            key.append(("value", value) if index in static else ("type", type(value).__name__))
        else:
            array = np.asarray(value)
            key.append((array.shape, str(array.dtype)))
    return tuple(key)


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
            wanted = len({_signature(c, static) for c, _ in _pairs(v, name)})
        else:
            wanted = len({key(c, v.params) for c in v.inputs})
        if compiled != wanted:
            return (f"the hidden calls compiled `{name}` {compiled} times for {wanted} distinct "
                    "input signatures")
        return None

    return _rule(title, f"Jit it yourself: {why}." if key is None else f"{why}.", judge,
                 points, needs=frozenset({"cache"}), subject=function)


def measured_durations(indices: Sequence[int], why: str, *, first_slower: bool = False,
                       function: str = "") -> Rule:
    """Outputs ``indices`` are durations a clock gave inside this call: positive floats whose
    sum does not exceed the call's own wall time (the harness's clock, outputs blocked); with
    ``first_slower``, the first (which compiles) exceeds the second (which does not)."""

    def judge(v: Values, spec: FunctionExercise) -> str | None:
        for call, result in _pairs(v, function or spec.function):
            outputs = result.plain.outputs or ()
            times = [outputs[i].value for i in indices if i < len(outputs)]
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
        return None

    return _rule("returns durations it measured (inside the call, first slower)" if first_slower
                 else "returns a duration it measured (inside the call)",
                 f"Measure them: {why}.", judge, needs=frozenset(), subject=function)
