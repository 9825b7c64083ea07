"""Function exercises: the learner writes a function; hidden checks call it on inputs it never saw.

An author's ``checks.py`` declares ``EXERCISE = FunctionExercise(...)`` and ``def calls(params,
rng) -> list[Call]``. The trusted process draws the inputs (edge cases plus random draws from a
seed chosen at grading time), the sandbox calls the reference solution and the learner's
function on them in separate runs, and the built-in checks below compare the two here, in the
trusted process. A hard-coded answer cannot pass: the inputs change every time it is graded.
"""

from __future__ import annotations

import ast
import io
import json
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from course import pysource
from course.checks.forgery import unreadable

CALLS_MAGIC = b"PWC1\n"


@dataclass(frozen=True)
class Cast:
    """An argument that arrives in the sandbox as ``jnp.asarray(value).astype(dtype)`` (for
    dtypes such as bfloat16 that a .npy file cannot carry)."""

    value: Any
    dtype: str


@dataclass(frozen=True)
class Call:
    """One hidden input: positional ``args`` (arrays, ``Cast`` or JSON scalars).

    kind: ``edge`` (chosen by the author) or ``random`` (drawn from the grading seed); the
    two are scored by separate checks, so feedback says which kind failed.
    """

    label: str
    args: tuple[Any, ...]
    kind: Literal["edge", "random"] = "edge"
    function: str = ""
    """Another of the learner's functions to call (a project has several); empty: the
    exercise's own."""


@dataclass(frozen=True)
class Rule:
    """A method rule on the object the grader calls.

    ``holds``: a static rule on the source of that object (the ``def`` or ``lambda`` the
    final binding's code was written at, parsed in the trusted process). ``judge``: a
    behavioural rule on the harness's facts (``course.checks.behaviour``); it returns why
    the rule does not hold, or None. ``needs``: the facts it asks the harness for (``jaxpr``,
    ``cache``, ``count``: traces and callbacks counted, ``pending``: arguments that become
    ready only after a slow computation).
    """

    title: str
    feedback: str
    holds: Callable[[ast.AST], bool] | None = None
    points: float = 1.0
    judge: Callable[[Any, FunctionExercise], str | None] | None = None
    needs: frozenset[str] = frozenset()
    subject: str = ""
    """The function the rule is about, when not the exercise's own (a project's)."""


@dataclass(frozen=True)
class FunctionExercise:
    """What an author declares about the function the learner writes.

    params: the variant space, e.g. ``{"n": (1, 2, 3)}``; one value of each is chosen per
    learner and substituted for ``{{n}}`` in the prompt, starter and solution.
    jit: the function must also work under ``jax.jit`` (``static_argnums`` for its Python
    arguments); ``jit_feedback`` says why, in the lesson's words.
    ignore_outputs: indices of outputs that are measured, not computed (timings): they are not
    compared with the reference.
    """

    function: str
    params: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    jit: bool = False
    static_argnums: tuple[int, ...] = ()
    jit_feedback: str = "the lesson asks for a function that works under jax.jit"
    rtol: float = 1e-6
    atol: float = 1e-6
    ignore_outputs: tuple[int, ...] = ()
    tolerances: Mapping[int, tuple[float, float]] = field(default_factory=dict)
    """Output index -> (rtol, atol) where one output amplifies rounding more than the others
    (a finite difference: float32 rounding of f divided by the step); derive it in checks.py."""
    check_dtype: bool = True
    rules: tuple[Rule, ...] = ()
    substitutes: tuple[str, ...] = ()
    """Names the grader rebinds before the calls to functions drawn at grading time (the
    checks.py's ``substitutes(params, rng)`` writes their source): a loss the learner never
    saw, which only a transformation, not a derivation by hand, differentiates right."""

    @property
    def needs(self) -> frozenset[str]:
        """The facts the harness must report: every rule's, and the trace of a jitted
        function (a callback inside it is not compiled code)."""
        found = frozenset({"jaxpr"}) if self.jit else frozenset()
        return found.union(*(rule.needs for rule in self.rules))

    def __post_init__(self) -> None:
        if not self.function.isidentifier():
            raise ValueError(f"FunctionExercise: {self.function!r} is not a function name")
        for name, values in self.params.items():
            if not name.isidentifier() or not isinstance(values, tuple | list) or not values:
                raise ValueError(f"FunctionExercise: parameter {name!r} needs a non-empty "
                                 "tuple of values")


# --- static rules -------------------------------------------------------------------------


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else ""


def uses_at_update(why: str = "an update must describe a new array with x.at[...]") -> Rule:
    """The function uses ``something.at[...]``."""

    def holds(fn: ast.FunctionDef) -> bool:
        return any(isinstance(n, ast.Subscript) and isinstance(n.value, ast.Attribute)
                   and n.value.attr == "at" for n in ast.walk(fn))

    return Rule("uses a functional .at[...] update", f"Use `.at[...]` here: {why}.", holds)


def no_item_assignment(why: str = "JAX arrays are immutable; copying into a NumPy array and "
                       "assigning into it is the mutation this lesson replaces") -> Rule:
    """No ``a[i] = ...`` (or ``+=``) anywhere in the function."""

    def holds(fn: ast.FunctionDef) -> bool:
        for node in ast.walk(fn):
            targets: list[ast.AST] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            if any(isinstance(t, ast.Subscript) for t in targets):
                return False
        return True

    return Rule("does not assign into an array", f"Do not assign into an array: {why}.", holds)


def calls_function(suffix: str, why: str) -> Rule:
    """The function calls something whose dotted name ends with ``suffix``."""

    def holds(fn: ast.FunctionDef) -> bool:
        return any(isinstance(n, ast.Call) and (_dotted(n.func) == suffix
                                                or _dotted(n.func).endswith("." + suffix))
                   for n in ast.walk(fn))

    return Rule(f"calls {suffix}", f"Call `{suffix}`: {why}.", holds)


def find_function(source: str, name: str, line: int | None = None) -> ast.AST | str:
    """The function the grader calls, as written in ``source``: the ``def`` or ``lambda``
    whose code starts at ``line`` (the final binding's, reported by the harness), or, with no
    line, the last top-level ``def name``; or why it cannot be read (bounded)."""
    too_big = unreadable(source)
    if too_big:
        return too_big
    try:
        tree = pysource.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return f"it does not parse ({type(exc).__name__})"
    if line is not None:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                starts = [node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())]
                if min(starts) == line:
                    return node
        return f"no function of main.py starts at line {line}, where `{name}` was written"
    found = [node for node in tree.body
             if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name]
    if not found:
        return f"there is no top-level `def {name}(...)`"
    return found[-1]


# --- the calls file -----------------------------------------------------------------------


def encode_calls(spec: FunctionExercise, calls: Sequence[Call],
                 substitutes: Mapping[str, str] | None = None) -> bytes:
    """The PWC1 file the harness reads: JSON header + .npy blobs, no pickle."""
    blobs: list[bytes] = []
    offset = 0
    encoded = []
    for call in calls:
        args = []
        for arg in call.args:
            cast = None
            if isinstance(arg, Cast):
                arg, cast = arg.value, arg.dtype
            if isinstance(arg, bool | int | float | str | type(None)):
                args.append({"kind": "scalar", "value": arg})
                continue
            array = np.asarray(arg)
            if array.dtype.hasobject:
                raise ValueError(f"call {call.label!r}: an argument holds Python objects")
            buffer = io.BytesIO()
            np.save(buffer, array, allow_pickle=False)
            blob = buffer.getvalue()
            args.append({"kind": "array", "offset": offset, "length": len(blob), "cast": cast})
            blobs.append(blob)
            offset += len(blob)
        encoded.append({"args": args, "function": call.function or spec.function})
    header = json.dumps({"version": 1, "function": spec.function, "jit": spec.jit,
                         "static": list(spec.static_argnums), "calls": encoded,
                         "jaxpr": "jaxpr" in spec.needs, "cache": "cache" in spec.needs,
                         "count": "count" in spec.needs, "pending": "pending" in spec.needs,
                         "partition": "partition" in spec.needs,
                         "watch": sorted({r.subject for r in spec.rules
                                          if "cache" in r.needs and r.subject}),
                         "substitutes": dict(substitutes or {})}).encode()
    return CALLS_MAGIC + struct.pack(">Q", len(header)) + header + b"".join(blobs)


def make_calls(draw: Callable[..., Sequence[Call]], params: Mapping[str, Any],
               seed: int) -> list[Call]:
    """The author's ``calls(params, rng)`` with a generator seeded by ``seed``."""
    calls = list(draw(dict(params), np.random.default_rng(seed)))
    if not all(isinstance(c, Call) for c in calls) or {c.kind for c in calls} != {"edge",
                                                                                "random"}:
        raise ValueError("calls(params, rng) must return a list of Call with at least one "
                         "edge case and one random draw")
    return calls
