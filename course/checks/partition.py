"""Method rules for partitioning, judged on what the run's devices and compiler did.

The harness reports, for each hidden call of the object the grader calls, how each output is
laid out (its ``NamedSharding``'s mesh axes, the devices holding a piece) and how many of each
collective XLA put in the compiled program (``jax.jit(f).lower(...).compile().as_text()``, or
the learner's own jitted function as declared). So a function that computes the right numbers
on one device, or gathers everything to one device and computes there, fails these rules,
whatever names its source mentions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from course.checks.api import Values
from course.checks.behaviour import _pairs, _rule, _traces
from course.checks.functions import FunctionExercise, Rule

Axes = tuple[Any, ...]
"""Per dimension: None (not split), a mesh axis name, or a tuple of names."""


def _normal(axes: Sequence[Any] | None) -> tuple[tuple[str, ...] | None, ...] | None:
    """P('data') and P('data', None) lay an array out the same way: trailing Nones go."""
    if axes is None:
        return None
    found = [None if a is None else (tuple(a) if isinstance(a, tuple | list) else (a,))
             for a in axes]
    while found and found[-1] is None:
        found.pop()
    return tuple(found)


def _show(axes: tuple[tuple[str, ...] | None, ...] | None) -> str:
    if axes is None:
        return "not a NamedSharding"
    parts = ["None" if a is None else (repr(a[0]) if len(a) == 1 else repr(a)) for a in axes]
    return f"P({', '.join(parts)})"


def sharded_as(why: str, axes: Axes | Callable[[dict], Axes], *, devices: int = 8,
               output: int = 0, function: str = "", points: float = 1.0) -> Rule:
    """Output ``output`` of every hidden call is a NamedSharding with these mesh ``axes`` per
    dimension (``axes(params)`` for a variant), held by ``devices`` devices."""

    def judge(v: Values, spec: FunctionExercise) -> str | None:
        wanted = _normal(axes(v.params) if callable(axes) else axes)
        for call, result in _pairs(v, function or spec.function):
            shardings = result.facts.shardings
            if shardings is None or output >= len(shardings) or shardings[output] is None:
                return f"on {call.label} output {output} is not a jax.Array with a sharding"
            got = shardings[output]
            if _normal(got.axes) != wanted or got.devices != devices:
                return (f"on {call.label} output {output} is laid out as {_show(_normal(got.axes))}"
                        f" over {got.devices} device(s), not {_show(wanted)} over {devices}")
        return None

    return _rule(f"returns output {output} laid out as {_show(_normal(axes))}"
                 if not callable(axes) else f"returns output {output} with the asked layout",
                 f"Lay it out: {why}.", judge, points, needs=frozenset({"partition"}),
                 subject=function)


Names = Sequence[str] | Callable[[dict], Sequence[str]]


def collectives(why: str, *, require: Names = (), forbid: Names = (), devices: int = 8,
                function: str = "", points: float = 1.0, title: str = "") -> Rule:
    """Every hidden call's compiled program ran on ``devices`` devices and holds at least one
    of each ``require``d collective and none of the ``forbid``den ones (each a list, or a
    function of the variant's params giving one)."""

    def judge(v: Values, spec: FunctionExercise) -> str | None:
        required = require(v.params) if callable(require) else require
        forbidden = forbid(v.params) if callable(forbid) else forbid
        for call, result in _pairs(v, function or spec.function):
            facts = result.facts.partition
            if facts is None:
                return "the grader has no compiled program of it"
            if facts.error:
                return f"on {call.label} it does not compile under jax.jit ({facts.error[:200]})"
            if facts.devices != devices:
                return f"on {call.label} the run had {facts.devices} devices, not {devices}"
            for name in required:
                if not facts.collectives.get(name):
                    return (f"on {call.label} its compiled program holds no {name}: the work "
                            "was not split across the devices the way the exercise asks")
            for name in forbidden:
                if facts.collectives.get(name):
                    return (f"on {call.label} its compiled program holds "
                            f"{facts.collectives[name]} {name}(s): data moves between devices "
                            "where the exercise's layout needs none")
        return None

    if callable(require) or callable(forbid):
        default = "compiles to a program with the collectives its layout needs, and no other"
    else:
        default = f"compiles to a program with {', '.join(require) or 'no collective'}" + (
            f" and no {', '.join(forbid)}" if forbid and require else "")
    return _rule(title or default, f"Partition it: {why}.", judge, points,
                 needs=frozenset({"partition"}), subject=function)


def per_device(why: str, *, collective: str = "psum", function: str = "",
               points: float = 1.0) -> Rule:
    """The function is a per-device program: its trace holds a ``shard_map`` and, inside, the
    ``collective`` primitive (pmean traces to a psum) the learner wrote between devices."""

    def judge(v: Values, spec: FunctionExercise) -> str | None:
        traces, problem = _traces(v, function or spec.function)
        if problem:
            return problem
        for call, facts in traces:
            if not facts.has("shard_map"):
                return (f"on {call.label} its traced program holds no shard_map: the "
                        "per-device program was not written")
            if not facts.has(collective):
                return (f"on {call.label} its shard_map holds no {collective}: the devices' "
                        "results are never combined by a collective you wrote")
        return None

    return _rule(f"is a shard_map whose devices combine results with {collective}",
                 f"Write the per-device program: {why}.", judge, points, subject=function)
