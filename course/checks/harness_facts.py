"""What JAX traces and XLA compiles from one call of the learner's function (a function exercise).

STANDALONE, like harness_calls.py: harness.py loads it by path from beside itself (in the
sandbox, /grader/) before the program runs and hands it to harness_calls.py in its tools; the
standard library and jax only. Facts, never judgements; bounded in size:

- ``jaxpr_facts``: the traced program's size, primitives and typed arithmetic, dead code
  removed (an unused call is not in it);
- ``partition_facts``: the collectives XLA's partitioner put in the compiled call.
"""

from __future__ import annotations

MAX_MESSAGE = 2000
MAX_PRIMITIVES = 64
MAX_EQNS = 1_000_000
TYPED = ("mul", "dot_general", "add", "sub")
"""Primitives whose operand and result dtypes are reported (where the arithmetic happens)."""


def _dtypes(variables: object) -> str:
    return ",".join(str(getattr(getattr(v, "aval", None), "dtype", "?")) for v in variables)


def walk_jaxpr(jaxpr: object, names: dict, typed: dict, depth: int = 0) -> int:
    """Equations of ``jaxpr`` and of every jaxpr nested in its equations' parameters."""
    if depth > 32:
        return 0
    count = 0
    for eqn in getattr(jaxpr, "eqns", ()):
        count += 1
        name = str(eqn.primitive.name)[:56]
        if name in TYPED and len(typed) < MAX_PRIMITIVES:
            key = f"{name}({_dtypes(eqn.invars)})->{_dtypes(eqn.outvars)}"[:120]
            typed[key] = typed.get(key, 0) + 1
        if eqn.params.get("reverse") is True:
            name += "[reverse]"  # a scan run backwards: what transposing a loop makes
        names[name] = names.get(name, 0) + 1
        for value in eqn.params.values():
            for item in value if isinstance(value, tuple | list) else (value,):
                inner = getattr(item, "jaxpr", item)
                if hasattr(inner, "eqns"):
                    count += walk_jaxpr(inner, names, typed, depth + 1)
        if count > MAX_EQNS:
            break
    return count


def jaxpr_facts(function: object, args: list, tools: dict) -> dict:
    """The size, primitives and typed arithmetic of what JAX traces from one call (Python
    scalars static), after dead-code elimination: what does not reach an output (or an
    effect, such as a callback) is not counted, so an unused call proves nothing."""
    static = tuple(i for i, a in enumerate(args) if not hasattr(a, "shape"))
    try:
        closed = tools["make_jaxpr"](function, static_argnums=static)(*args)
        jaxpr = closed.jaxpr
        jaxpr = tools["dce"](jaxpr, [True] * len(jaxpr.outvars))[0]
    except BaseException as exc:  # noqa: BLE001 - a function JAX cannot trace is a fact
        return {"error": f"{type(exc).__name__}: {exc}"[:MAX_MESSAGE]}
    names: dict = {}
    typed: dict = {}
    count = walk_jaxpr(jaxpr, names, typed)
    kept = sorted(names)[:MAX_PRIMITIVES]
    return {"eqns": min(count, MAX_EQNS), "primitives": {k: names[k] for k in kept},
            "typed": typed}


COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "collective-permute",
               "all-to-all")
MAX_HLO_CHARS = 4_000_000


def partition_facts(function: object, args: list, tools: dict) -> dict:
    """The collectives XLA's partitioner put in the compiled program of one call: the
    learner's own jitted function as they declared it, else jax.jit of the function."""
    try:
        lower = getattr(function, "lower", None)
        lowered = lower(*args) if callable(lower) else tools["jit"](function).lower(*args)
        text = lowered.compile().as_text()[:MAX_HLO_CHARS]
    except BaseException as exc:  # noqa: BLE001 - a program that does not compile is a fact
        return {"error": f"{type(exc).__name__}: {exc}"[:MAX_MESSAGE]}
    counts = dict.fromkeys(COLLECTIVES, 0)
    for line in text.splitlines():
        _, equals, rest = line.partition(" = ")
        if not equals:
            continue
        for name in COLLECTIVES:  # "(f32[8,4], f32[]) all-reduce(%a, %b)": the op, not "%all-"
            if f" {name}(" in rest or f" {name}-start(" in rest:
                counts[name] += 1
    return {"collectives": counts, "devices": int(tools["jax"].device_count())}
