"""The method rules judged on behaviour: the harness's facts, their parsing, and each judge.

The facts are measured here with the harness's own functions on real JAX functions (a vmap
against a Python loop, a scan, a callback, a jitted function), then judged on ``Values`` built
from them, as the trusted process sees them after ``read_values``.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from course import submission_for
from course.checks import (
    Call,
    CapturedCalls,
    CapturedValues,
    Cast,
    FunctionExercise,
    Values,
    compile_signature,
    compiles_per_signature,
    differentiates_loop,
    functional_update,
    loops,
    measured_durations,
    traced,
    vectorised,
)
from course.checks import harness as h
from course.checks import harness_calls as hc
from course.checks.facts import FactsError, call_facts, report_facts
from course.checks.forgery import forgery
from course.checks.functions import find_function
from course.checks.values import CallOutputs, CallResult, CapturedValue
from tests.packaged import packaged_course

TOOLS = h.call_tools()


def _facts(function, args) -> dict:  # noqa: ANN001
    return {"jaxpr": TOOLS["facts"].jaxpr_facts(function, list(args), TOOLS),
            "seconds": 0.01}


def _values(function, arg_sets, *, outputs=None, compiled=None, seconds=None) -> Values:  # noqa: ANN001
    """Values as read from a report: each call's jaxpr facts measured on ``function``;
    ``outputs``: every call's, or a list of them, one per call."""
    calls = [Call(f"call {i}", tuple(np.asarray(a) if hasattr(a, "shape") else a for a in args),
                  "edge" if i == 0 else "random") for i, args in enumerate(arg_sets)]
    results = []
    per_call = bool(outputs) and isinstance(outputs[0], list)
    for i, args in enumerate(arg_sets):
        raw = _facts(function, args)
        if seconds is not None:
            raw["seconds"] = seconds
        these = outputs[i] if per_call else outputs
        out = tuple(CapturedValue("scalar", v, "float") for v in (these or [0.0]))
        results.append(CallResult(CallOutputs(out, outputs is not None, None), (), None,
                                  call_facts(raw)))
    facts = report_facts({"compiled": {} if compiled is None else {"f": compiled}})
    captured = CapturedValues(True, None, calls=CapturedCalls("f", True, tuple(results), facts))
    return Values(captured, inputs=calls)


SPEC = FunctionExercise("f")


def _batch(n: int, d: int = 3) -> tuple[jnp.ndarray, jnp.ndarray]:
    return jnp.ones(d), jnp.arange(float(n * d)).reshape(n, d)


def one(w, x):  # noqa: ANN001, ANN201
    return jnp.tanh(jnp.dot(w, x))


def test_vectorised_accepts_vmap_and_refuses_a_loop_a_map_and_a_callback() -> None:
    sizes = [_batch(1), _batch(4), _batch(9)]
    rule = vectorised("taught")
    assert rule.judge(_values(lambda w, xs: jax.vmap(one, (None, 0))(w, xs), sizes), SPEC) is None
    loop = rule.judge(_values(lambda w, xs: jnp.stack([one(w, x) for x in xs]), sizes), SPEC)
    assert loop and "grows with the input" in loop
    unused = rule.judge(_values(lambda w, xs: (jax.vmap(jnp.sin)(xs),
                                               jnp.stack([one(w, x) for x in xs]))[1], sizes),
                        SPEC)
    assert unused and "grows" in unused
    mapped = rule.judge(_values(lambda w, xs: jax.lax.map(lambda x: one(w, x), xs), sizes), SPEC)
    assert mapped and "loop" in mapped

    def callback(w, xs):  # noqa: ANN001, ANN202
        shape = jax.ShapeDtypeStruct((xs.shape[0],), jnp.float32)
        return jax.pure_callback(lambda w, xs: np.tanh(np.asarray(xs) @ np.asarray(w)), shape,
                                 w, xs)

    assert "callback" in rule.judge(_values(callback, sizes), SPEC)


def test_loops_wants_a_scan_whose_trace_does_not_grow_with_the_steps() -> None:
    steps = [(jnp.float32(0.0), jnp.zeros(n)) for n in (1, 5, 20)]

    def scanned(x0, forces):  # noqa: ANN001, ANN202
        return jax.lax.scan(lambda c, f: (c + f, c), x0, forces)[1]

    def unrolled(x0, forces):  # noqa: ANN001, ANN202
        out = []
        for f in forces:
            x0 = x0 + f
            out.append(x0)
        return jnp.stack(out)

    rule = loops("taught")
    assert rule.judge(_values(scanned, steps), SPEC) is None
    assert "no loop" in rule.judge(_values(unrolled, steps), SPEC)

    def unused_scan(x0, forces):  # noqa: ANN001, ANN202
        jax.lax.scan(lambda c, f: (c, f), 0.0, forces)
        return unrolled(x0, forces)

    # dead code removed: an unused scan is not in the program the rule reads
    assert "no loop" in rule.judge(_values(unused_scan, steps), SPEC)


def test_functional_update_and_traced_read_the_program() -> None:
    xs = [(jnp.ones(4),), (jnp.ones(7),)]
    assert functional_update("t").judge(_values(lambda x: x.at[-2:].set(0.0), xs), SPEC) is None

    def bare_at(x):  # noqa: ANN001, ANN202
        x.at[0]
        return jnp.concatenate([x[:-2], jnp.zeros(2)])

    assert "no indexed update" in functional_update("t").judge(_values(bare_at, xs), SPEC)

    def on_host(x):  # noqa: ANN001, ANN202
        y = np.array(x)
        y[-2:] = 0
        return jnp.asarray(y)

    problem = traced("t").judge(_values(on_host, xs), SPEC)
    assert problem and "cannot trace" in problem


def test_differentiates_loop_sees_the_transpose_of_the_loop() -> None:
    def root(a):  # noqa: ANN001, ANN202
        return jax.lax.fori_loop(0, 10, lambda i, y: y - (y**2 - a) / (2 * y), jnp.ones_like(a))

    args = [(jnp.float32(2.0),), (jnp.float32(5.0),)]
    rule = differentiates_loop("t")
    assert rule.judge(_values(lambda a: (root(a), jax.grad(root)(a)), args), SPEC) is None
    twice = _values(lambda a: (root(a), root(a) / (2 * a)), args)  # two forward loops
    assert "never runs the loop backwards" in rule.judge(twice, SPEC)


def test_compiles_per_signature_counts_the_learners_own_jitted_function() -> None:
    @functools.partial(jax.jit, static_argnames="n")
    def head(v, n):  # noqa: ANN001, ANN202
        return jnp.sum(v[:n])

    head.clear_cache()
    arg_sets = [(jnp.ones(4), 2), (jnp.ones(4), 2), (jnp.ones(4), 3), (jnp.ones(6), 2)]
    for v, n in arg_sets:
        head(v, n)
    rule = compiles_per_signature("t", static=(1,))
    plain = _values(lambda v: jnp.sum(v), [(jnp.ones(2),)])
    assert "not a jax.jit-compiled" in rule.judge(plain, SPEC)
    counted = _values(lambda v, n: jnp.sum(v), arg_sets, compiled=head._cache_size())
    assert head._cache_size() == 3 and rule.judge(counted, SPEC) is None
    too_many = _values(lambda v, n: jnp.sum(v), arg_sets, compiled=4)
    assert "4 times for 3" in rule.judge(too_many, SPEC)


def test_measured_durations_must_fit_inside_the_timed_call() -> None:
    rule = measured_durations((1, 2), "t", first_slower=True)
    args = [(jnp.ones(2),)]

    def judge(first: float, later: float, call: float = 0.05) -> str | None:
        values = _values(lambda v: v, args, outputs=[1.0, first, later], seconds=call)
        return rule.judge(values, SPEC)

    assert judge(0.03, 0.001) is None
    assert "not above 0" in judge(0.0, 0.0)
    assert "longer than the whole call" in judge(0.5, 0.01)
    assert "not slower" in judge(0.001, 0.002)


def test_durations_typed_in_are_refused_on_a_host_slow_enough_to_fit_them() -> None:
    """On a loaded host a whole call can take longer than a plausible typed-in pair (0.5 s,
    0.01 s), so the sum test passes it; the same numbers on every call still give it away."""
    rule = measured_durations((1, 2), "t", first_slower=True)
    args = [(jnp.ones(2),), (jnp.ones(3),), (jnp.ones(4),)]
    forged = _values(lambda v: v, args, outputs=[1.0, 0.5, 0.01], seconds=2.0)
    assert "typed in" in rule.judge(forged, SPEC)
    measured = _values(lambda v: v, args, seconds=2.0,
                       outputs=[[1.0, 0.5, 0.01], [1.0, 0.41, 0.012], [1.0, 0.47, 0.009]])
    assert rule.judge(measured, SPEC) is None
    one_call = _values(lambda v: v, args[:1], outputs=[1.0, 0.5, 0.01], seconds=2.0)
    assert rule.judge(one_call, SPEC) is None  # one reading proves nothing either way


def test_harness_reports_the_final_binding_and_the_rules_read_that_source() -> None:
    source = ("import functools\nimport jax\n\n\ndef f(x):\n    return x\n\n\n"
              "@functools.partial(jax.jit, static_argnames='n')\ndef g(x, n):\n    return x\n\n\n"
              "f = lambda x: x + 1\n")
    namespace: dict = {}
    exec(compile(source, "/tmp/main.py", "exec"), namespace)  # noqa: S102
    target_f = hc.target(namespace["f"], "/tmp/main.py")
    target_g = hc.target(namespace["g"], "/tmp/main.py")
    assert target_f == {"line": 14, "name": "<lambda>", "in_program": True}
    assert target_g["line"] == 9 and target_g["name"] == "g"  # a decorated def: its decorator
    assert type(find_function(source, "f", 14)).__name__ == "Lambda"
    assert find_function(source, "g", 9).name == "g"
    assert find_function(source, "f").lineno == 5  # the old reading: the last def, a decoy
    assert hc.target(jnp.sin, "/tmp/main.py")["in_program"] is False


def test_facts_from_the_sandbox_are_bounded() -> None:
    for raw in ({"seconds": -1.0}, {"seconds": float("nan")}, {"seconds": True},
                {"jaxpr": {"eqns": -3, "primitives": {}}},
                {"jaxpr": {"eqns": 1, "primitives": {f"p{i}": 1 for i in range(65)}}},
                {"jaxpr": {"eqns": 1, "primitives": ["scan"]}}, {"jaxpr": {"error": 5}}):
        with pytest.raises(FactsError):
            call_facts(raw)
    for raw in ({"targets": {"f": {"line": 0}}}, {"compiled": {"f": "3"}},
                {"targets": {f"f{i}": {} for i in range(17)}}):
        with pytest.raises(FactsError):
            report_facts(raw)


@pytest.mark.parametrize("line", [
    "jax.make_jaxpr = lambda f, **k: f",
    "import sys\nsys.modules['jax'] = None",
    "import time\ntime.perf_counter = lambda: 0.0",
    "jnp.sum.__code__ = None",
    "setattr(jax, 'jit', print)",
    "import inspect",
    "__builtins__['len'] = None",
    "import sys\nf = sys._getframe(1).f_back",
    "A = jax.Array\nA.block_until_ready = lambda self: self",
    "A = jax.Array\nB = A\nB.block_until_ready = lambda self: self",
    "x = jnp.ones(1)\ntype(x).block_until_ready = lambda self: self",
    "clock = jax.numpy\nclock.sum = max",
])
def test_forgery_is_refused_with_the_line(line: str) -> None:
    why = forgery(f"import jax\nimport jax.numpy as jnp\n\n{line}\n")
    assert why is not None and "main.py line" in why and "refuses" in why


def test_no_reference_or_lesson_program_is_taken_for_a_forgery() -> None:
    course = packaged_course()
    for lesson, exercise in course.gradables():
        for variant in exercise.variants or [{}]:
            code = submission_for(lesson, exercise, exercise.for_variant(variant).solution_code)
            assert forgery(code) is None, exercise.id


def test_a_file_that_is_slow_to_parse_is_not_parsed_by_the_trusted_process() -> None:
    """A 224 KB line of nested f-string format specs costs ast.parse ~3 s of CPU."""
    import time

    bomb = 'x = f"' + "{x:{x}{x}{x}{x}{x}{x}{x}{x}}" * 8000 + '"\n'
    start = time.process_time()
    assert forgery(bomb) is None
    assert "a line is longer than" in find_function(bomb, "f")
    assert time.process_time() - start < 0.5


def test_compiles_per_signature_can_count_a_helper_per_bucket() -> None:
    """bucketed-lengths: the learner's function calls a jitted helper; the hidden calls must
    compile it once per bucket (key), whatever the number of distinct lengths."""
    rule = compiles_per_signature("pad first", function="helper",
                                  key=lambda call, params: -(-len(call.args[0]) // params["b"]))
    lengths = [(jnp.ones(n),) for n in (1, 3, 4, 5, 9)]  # buckets of 4: 1, 1, 1, 2, 3
    values = _values(lambda v: jnp.sum(v), lengths)
    values.params = {"b": 4}
    facts = values.captured.calls.facts
    facts.compiled["helper"] = 3
    assert rule.judge(values, SPEC) is None
    facts.compiled["helper"] = 5  # once per length
    assert "5 times for 3" in rule.judge(values, SPEC)
    assert rule.subject == "helper" and rule.feedback == "pad first."


def test_a_compile_signature_is_jits_cache_key_leaf_by_leaf() -> None:
    """Arrays by shape and dtype (NumPy's or JAX's alike), a cast by the dtype it arrives in,
    a static argument by value, a traced scalar by type, a pytree by its structure and leaves:
    two parameter pytrees whose leaves differ in shape compile twice (read as one NumPy
    object array, they once counted as one signature)."""
    def params(width: int) -> list[dict]:
        return [{"w": np.zeros((3, width), np.float32), "b": np.zeros(width, np.float32)}]

    def sig(*args: object, static: tuple[int, ...] = ()) -> tuple:
        return compile_signature(Call("c", args), static)

    assert sig(np.ones(3, np.float32)) == sig(jnp.zeros(3, jnp.float32))
    assert sig(np.ones(3, np.float32)) != sig(np.ones(3, np.float64))
    assert sig(Cast(np.ones(2), "bfloat16")) != sig(Cast(np.ones(2), "float16"))
    assert sig(np.ones(2), 4) == sig(np.zeros(2), 5)
    assert sig(np.ones(2), 4, static=(1,)) != sig(np.ones(2), 5, static=(1,))
    assert sig(params(4)) == sig(params(4)) != sig(params(5))
    assert sig({"a": np.ones(2), "b": 1.0}) != sig({"a": np.ones(2), "b": 1})
