"""The checks every function exercise gets: compare the learner's calls with the reference's.

All of them run in the trusted process on what the two sandboxed runs reported. The learner
never sees the reference's outputs except in feedback on inputs drawn for that grading only.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

import numpy as np

from course.checks.api import CheckFailed, CheckSpec, Values, show
from course.checks.functions import Call, FunctionExercise, Rule, find_function
from course.checks.values import CallOutputs, CallResult, CapturedValue, CapturedValues

BuiltinCheck = tuple[CheckSpec, Callable[[Values], None]]


def _arg_text(arg: object) -> str:
    value = getattr(arg, "value", arg)
    return show(np.asarray(value)) if not isinstance(value, int | float | str) else repr(value)


def _input_text(call: Call) -> str:
    called = f"{call.function}" if call.function else ""
    return f"{call.label}: {called}({', '.join(_arg_text(a) for a in call.args)})"


_NUMERIC = "biuf"  # bool, int, unsigned, float: compared as float64 (dtype is its own check)


def _as_numbers(value: object, kind: str) -> np.ndarray | None:
    """``value`` as an array of the reference's kind (complex kept complex), or None when its
    own kind is not numeric or would lose information in that cast (a complex value where
    the reference is real: its imaginary part is not dropped)."""
    array = np.asarray(value)
    if array.dtype.kind not in _NUMERIC + "c" or (array.dtype.kind == "c" and kind != "c"):
        return None
    return array.astype(np.complex128 if kind == "c" else np.float64)


def _differ(got: CapturedValue, want: CapturedValue, spec: FunctionExercise,
            index: int = 0) -> str | None:
    """Compared by the reference's kind: text as text; numbers as numbers of that kind, the
    learner's value required to be of a kind that casts to it without loss."""
    if got.kind not in ("array", "scalar"):
        return f"returned {got.type or 'nothing usable'} ({got.reason or got.kind})"
    if want.kind == "scalar" and isinstance(want.value, str):
        return None if got.value == want.value else f"returned {got.value!r}, expected " \
                                                     f"{want.value!r}"
    kind = np.asarray(want.value).dtype.kind
    if kind not in _NUMERIC + "c":  # None, or an array of another kind: equal, or not
        same = got.kind == want.kind and np.array_equal(np.asarray(got.value),
                                                        np.asarray(want.value))
        return None if same else f"returned {show(got.value)}, expected {show(want.value)}"
    actual = _as_numbers(got.value, kind)
    if actual is None:
        what = "complex" if np.asarray(got.value).dtype.kind == "c" else "not numeric"
        return f"returned {show(got.value)}, which is {what}"
    expected = np.asarray(want.value).astype(actual.dtype)
    if actual.shape != expected.shape:
        return f"returned shape {actual.shape}, expected {expected.shape}"
    rtol, atol = spec.tolerances.get(index, (spec.rtol, spec.atol))
    if not np.allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True):
        return f"returned {show(actual)}, expected {show(expected)}"
    return None


def _same_argument(before: CapturedValue, after: CapturedValue) -> bool:
    """An argument after the learner's call is the reference's argument after its call: same
    kind, dtype and values. One that can no longer be read (deleted, replaced by something
    the harness cannot capture) has changed."""
    if before.kind != after.kind or before.kind not in ("array", "scalar"):
        return before.kind == after.kind == "missing"
    if before.kind == "scalar":
        same_nan = isinstance(before.value, float) and isinstance(after.value, float) \
            and before.value != before.value and after.value != after.value
        return type(before.value) is type(after.value) and (before.value == after.value
                                                           or same_nan)
    mine, theirs = np.asarray(after.value), np.asarray(before.value)
    if mine.dtype != theirs.dtype or mine.shape != theirs.shape:
        return False
    nan_aware = theirs.dtype.kind in "fc"
    return bool(np.array_equal(theirs, mine, equal_nan=nan_aware))


def compare(got: CallOutputs, want: CallOutputs, spec: FunctionExercise) -> str | None:
    """Why ``got`` differs from the reference's ``want`` (None: the same)."""
    if got.error is not None:
        return f"raised at {got.error.describe()}"
    assert got.outputs is not None and want.outputs is not None
    if got.is_tuple != want.is_tuple or len(got.outputs) != len(want.outputs):
        shape = f"a tuple of {len(want.outputs)}" if want.is_tuple else "a single value"
        return f"should return {shape}"
    for index, (mine, theirs) in enumerate(zip(got.outputs, want.outputs, strict=True)):
        if index in spec.ignore_outputs:
            continue
        problem = _differ(mine, theirs, spec, index)
        if problem:
            where = f"output {index}: " if want.is_tuple else ""
            return where + problem
    return None


def _plain(v: Values, spec: FunctionExercise) -> list[tuple[Call, CallOutputs, CallOutputs]]:
    """(input, learner's call, reference's call) for every hidden input; fails if unusable."""
    calls = v.captured.calls
    if calls is None:
        raise CheckFailed(f"`{spec.function}` was never called: {v.captured.stopped()}")
    if not calls.defined:
        raise CheckFailed(f"define a function `def {spec.function}(...)` at the top level of "
                          "main.py; the grader calls it on hidden inputs")
    expected = v.expected
    if expected is None or expected.calls is None or len(expected.calls.results) != len(
            calls.results) or len(calls.results) != len(v.inputs):
        raise RuntimeError("the reference run does not match the hidden inputs")
    return [(call, mine.plain, theirs.plain) for call, mine, theirs in
            zip(v.inputs, calls.results, expected.calls.results, strict=True)]


def _runs(spec: FunctionExercise) -> Callable[[Values], None]:
    def check(v: Values) -> None:
        for call, mine, _ in _plain(v, spec):
            if mine.error is not None:
                raise CheckFailed(f"`{spec.function}` raised on {_input_text(call)}, at "
                                  f"{mine.error.describe()}")
    return check


def _matches(spec: FunctionExercise, kind: str) -> Callable[[Values], None]:
    def check(v: Values) -> None:
        triples = [t for t in _plain(v, spec) if t[0].kind == kind]
        for call, mine, theirs in triples:
            problem = compare(mine, theirs, spec)
            if problem:
                raise CheckFailed(f"on {_input_text(call)} `{spec.function}` {problem}")
    return check


def _types(spec: FunctionExercise) -> Callable[[Values], None]:
    def check(v: Values) -> None:
        for call, mine, theirs in _plain(v, spec):
            if mine.outputs is None or theirs.outputs is None:
                raise CheckFailed(f"`{spec.function}` raised on {_input_text(call)}")
            for index, (got, want) in enumerate(zip(mine.outputs, theirs.outputs, strict=False)):
                where = f"output {index}" if theirs.is_tuple else "the result"
                if index in spec.ignore_outputs:
                    continue
                if want.jax_array and not got.jax_array:
                    raise CheckFailed(f"on {call.label}, {where} is a {got.type or got.kind}, "
                                      "not a jax.Array: return a JAX array (jnp.asarray "
                                      "sends a host value back)")
                if spec.check_dtype and want.dtype and got.dtype != want.dtype:
                    raise CheckFailed(f"on {call.label}, {where} has dtype "
                                      f"{got.dtype or got.kind}, expected {want.dtype}")
    return check


def _unchanged(spec: FunctionExercise) -> Callable[[Values], None]:
    """Each argument after the learner's call equals the same argument after the reference's
    (both arrived identically, casts included, so any difference is a mutation)."""

    def check(v: Values) -> None:
        _plain(v, spec)
        calls, expected = v.captured.calls, v.expected.calls if v.expected else None
        assert calls is not None and expected is not None
        for call, mine, theirs in zip(v.inputs, calls.results, expected.results, strict=True):
            if len(mine.inputs_after) != len(theirs.inputs_after):
                raise CheckFailed(f"the arguments could not be read after the call on "
                                  f"{call.label}: never modify the ones you were given")
            for index, (after, before) in enumerate(zip(mine.inputs_after, theirs.inputs_after,
                                                        strict=True)):
                if not _same_argument(before, after):
                    raise CheckFailed(f"argument {index} changed during the call on "
                                      f"{call.label}: return a new array, never modify the "
                                      "one you were given")
    return check


def _under_jit(spec: FunctionExercise) -> Callable[[Values], None]:
    def check(v: Values) -> None:
        calls = v.captured.calls
        expected = v.expected.calls if v.expected else None
        _plain(v, spec)
        assert calls is not None and expected is not None
        for call, mine, theirs in zip(v.inputs, calls.results, expected.results, strict=True):
            if mine.jit is None or theirs.jit is None:
                raise RuntimeError("the jit run is missing from a report")
            problem = _callback(mine)
            if problem:
                raise CheckFailed(f"under jax.jit, on {call.label} `{spec.function}`: {problem}: "
                                  "that part runs outside the compiled program. Why it "
                                  f"matters: {spec.jit_feedback}")
            if mine.jit.error is not None:
                raise CheckFailed(f"jax.jit({spec.function}) fails on {call.label} with "
                                  f"{mine.jit.error.type}: {mine.jit.error.message[:300]}. "
                                  f"Why it matters: {spec.jit_feedback}")
            problem = compare(mine.jit, theirs.jit, spec)
            if problem:
                raise CheckFailed(f"under jax.jit, on {_input_text(call)} `{spec.function}` "
                                  f"{problem}")
    return check


def called_source(v: Values, name: str) -> ast.AST:
    """The source of what ``name`` is bound to when the program ends (the object the grader
    calls), never merely the last ``def name``: a decoy ``def`` rebound later is not read."""
    calls = v.captured.calls
    if calls is None or not calls.defined:
        raise CheckFailed(f"`{name}` was never called: {v.captured.stopped()}")
    target = calls.facts.targets.get(name)
    if target is None or target.line is None or not target.in_program:
        what = target.name if target else "nothing callable"
        raise CheckFailed(f"`{name}` is bound to {what}, not to a function written in main.py: "
                          "write the function yourself (a jax.jit or functools.partial of it "
                          "is fine)")
    found = find_function(v.source, name, target.line)
    if isinstance(found, str):
        raise CheckFailed(f"cannot read `{name}` in main.py: {found}")
    return found


def _rule(spec: FunctionExercise, rule: Rule) -> Callable[[Values], None]:
    def check(v: Values) -> None:
        subject = rule.subject or spec.function
        if rule.holds is not None and not rule.holds(called_source(v, subject)):
            raise CheckFailed(rule.feedback)
        if rule.judge is not None:
            _plain(v, spec)
            problem = rule.judge(v, spec)
            if problem:
                raise CheckFailed(f"{problem}. {rule.feedback}")
    return check


CALLBACKS = ("pure_callback", "io_callback")
"""Primitives that leave the compiled program to run Python (NumPy, SciPy) on the host."""


def _callback(result: CallResult) -> str | None:
    facts = result.facts.jaxpr
    if facts is not None and facts.has(*CALLBACKS):
        return "it calls back into Python (jax.pure_callback / io_callback)"
    return None


def builtin_titles(spec: FunctionExercise) -> dict[str, str]:
    """The built-in checks' titles: plain words a learner reads (no Markdown)."""
    fn = spec.function
    return {"runs": f"{fn} is defined and runs on every hidden input",
            "edge": f"{fn} matches the reference on the edge cases",
            "random": f"{fn} matches the reference on inputs drawn at grading time",
            "types": f"{fn} returns the reference's kind of value (jax.Array, dtype)",
            "unchanged": f"{fn} leaves its arguments unchanged",
            "jit": f"{fn} works under jax.jit"}


def result_titles(spec: FunctionExercise) -> frozenset[str]:
    """The checks that compare results with the reference: until one of them passes, no
    other check earns points (an unfinished starter runs, changes nothing and may use the
    right method, but does not do the exercise)."""
    titles = builtin_titles(spec)
    return frozenset({titles["edge"], titles["random"]})


def builtin_checks(spec: FunctionExercise) -> list[BuiltinCheck]:
    """The standard checks, numbered before any ``@check`` of the author's (order < 0)."""
    titles = builtin_titles(spec)
    made: list[tuple[str, float, bool, Callable[[Values], None]]] = [
        (titles["runs"], 1.0, True, _runs(spec)),
        (titles["edge"], 2.0, True, _matches(spec, "edge")),
        (titles["random"], 2.0, True, _matches(spec, "random")),
        (titles["types"], 1.0, True, _types(spec)),
        (titles["unchanged"], 1.0, True, _unchanged(spec)),
    ]
    if spec.jit:
        made.append((titles["jit"], 1.0, True, _under_jit(spec)))
    made += [(f"{rule.subject or spec.function} {rule.title}", rule.points, True,
              _rule(spec, rule)) for rule in spec.rules]
    return [(CheckSpec(title, points, visible, -len(made) + i), function)
            for i, (title, points, visible, function) in enumerate(made)]


def reference_problem(expected: CapturedValues, spec: FunctionExercise) -> str | None:
    """Why the reference run cannot serve as the expected outputs (None: it can)."""
    if expected.error is not None:
        return f"the reference solution {expected.stopped()}"
    calls = expected.calls
    if calls is None or not calls.defined:
        return f"the reference solution does not define `{spec.function}`"
    for index, result in enumerate(calls.results):
        if result.plain.error is not None:
            return f"the reference raised on hidden input {index}: {result.plain.error.describe()}"
        if spec.jit and (result.jit is None or result.jit.error is not None):
            return f"the reference fails under jax.jit on hidden input {index}"
    return None


def hardcoded_source(spec: FunctionExercise, expected: CapturedValues) -> str:
    """A cheat: ``def fn(*args): return <the reference's outputs on the first input>``.

    ``course check`` grades it to prove the checks do not reward typed-in values.
    """
    assert expected.calls is not None
    first = expected.calls.results[0].plain
    assert first.outputs is not None

    def literal(entry: CapturedValue) -> str:
        if entry.kind == "array":
            return f"jnp.asarray({np.asarray(entry.value).tolist()!r}, dtype={entry.dtype!r})"
        return repr(entry.value)

    values = [literal(e) for e in first.outputs]
    body = f"({', '.join(values)},)" if first.is_tuple else values[0]
    return (f"import jax.numpy as jnp\n\n\ndef {spec.function}(*args, **kwargs):\n"
            f"    return {body}\n")
