"""Method rules judged on behaviour: what JAX traced from the object the grader calls.

A rule that matches a name in the source is satisfied by one unused call; these read the
harness's facts instead (``course.checks.facts``), measured on the final binding of the
learner's function on the hidden inputs:

- vectorised: the trace has the same number of equations at every batch size (a Python loop
  unrolls, one copy per row) and no loop or callback primitive;
- loops: a ``scan`` / ``while`` is traced and the trace does not grow with the step count;
- functional update: a ``scatter`` (``x.at[...]``) is traced;
- reverse mode through a loop: the trace holds the loop and its transpose (a reverse scan);
- traced by JAX: the function traces (NumPy on a tracer does not) with no callback;
- on the host: it does not trace, because it reads the values into NumPy;
- element-wise choice: a ``select`` reaches the output and no ``cond`` branches;
- arithmetic in a dtype: the product (``mul``, ``dot_general``) the program computes runs on
  operands of that dtype;
- one pass: the program is no larger than the reference's on the same input.

The traces have dead code removed, so a call whose result is unused is not in them. Rules on
what the run observed (compilations, durations, readiness, placement, counts) are in
``course.checks.observed``.
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


def on_host(why: str, *, function: str = "") -> Rule:
    """The function reads its argument's values on the host (``np.array(y)``), which JAX
    cannot trace: the trace fails converting a tracer to a NumPy array."""

    def judge(v: Values, spec: FunctionExercise) -> str | None:
        for call, result in _pairs(v, function or spec.function):
            facts = result.facts.jaxpr
            if facts is None:
                return "the grader has no trace of it"
            if not facts.error:
                return (f"on {call.label} JAX traced it as a program on device: the values "
                        "never went to the host")
            if not facts.error.startswith("TracerArrayConversionError"):
                return f"on {call.label} it stops for another reason: {facts.error[:200]}"
        return None

    return _rule("edits a NumPy copy on the host", f"Go through the host: {why}.", judge,
                 subject=function)


def selects(why: str, *, function: str = "") -> Rule:
    """Chosen element by element: a ``select_n`` (``jnp.where``) reaches the output, and no
    ``cond`` (one branch for the whole array) or Python ``if`` (the trace fails) decides."""

    def judge(v: Values, spec: FunctionExercise) -> str | None:
        traces, problem = _traces(v, function or spec.function)
        if problem:
            return problem
        for call, facts in traces:
            if facts.has("cond"):
                return f"on {call.label} one branch (lax.cond) decides for the whole array"
            if not facts.has("select_n"):
                return f"on {call.label} nothing in its result is chosen element by element"
        return None

    return _rule("chooses element by element inside its program (jnp.where)",
                 f"Choose with jnp.where: {why}.", judge, subject=function)


def computes_in(operation: str, operands: str, result: str, why: str, *,
                function: str = "") -> Rule:
    """Some ``operation`` (``mul``, ``dot_general``) that reaches the output runs on
    ``operands`` (``"int32,int32"``) and gives ``result``: the dtype the arithmetic ran in."""
    wanted = f"{operation}({operands})->{result}"

    def judge(v: Values, spec: FunctionExercise) -> str | None:
        traces, problem = _traces(v, function or spec.function)
        if problem:
            return problem
        for call, facts in traces:
            if wanted not in facts.typed:
                ran = sorted(k for k in facts.typed if k.startswith(operation + "(")) or [
                    "none"]
                return (f"on {call.label} its {operation} runs as {', '.join(ran)[:200]}, "
                        f"not {wanted}")
        return None

    kind = operands.split(",")[0]
    return _rule(f"computes its {'product' if operation == 'mul' else operation} in {kind}",
                 f"Cast before the arithmetic: {why}.", judge, subject=function)


def _size(facts: Any) -> int:
    """Equations, not counting jit wrappers (a jitted helper adds one around the same body)."""
    return facts.eqns - facts.primitives.get("jit", 0) - facts.primitives.get("pjit", 0)


def one_pass(why: str, *, slack: int = 1, function: str = "") -> Rule:
    """The traced program (dead code removed) is no larger than the reference's on the same
    input, ``slack`` equations allowed: computing a part twice shows as a larger one (the
    loss beside jax.grad of it repeats the forward pass that the gradient keeps, x @ w - y)."""

    def judge(v: Values, spec: FunctionExercise) -> str | None:
        name = function or spec.function
        traces, problem = _traces(v, name)
        if problem:
            return problem
        calls = v.captured.calls
        expected = v.expected.calls.results if v.expected and v.expected.calls else ()
        references = [theirs.facts.jaxpr for call, theirs in zip(v.inputs, expected,
                                                                  strict=False)
                      if (call.function or calls.function) == name] if calls else []
        for (call, facts), reference in zip(traces, references, strict=False):
            if reference is None or reference.error:
                continue
            if _size(facts) > _size(reference) + slack:
                return (f"on {call.label} its program has {_size(facts)} operations where "
                        f"one pass needs {_size(reference)}: part of it is computed twice")
        return None

    return _rule("computes it in one pass (no part computed twice)", f"One pass: {why}.",
                 judge, subject=function)


