"""The rules that replaced name matching, judged on facts the real harness reports.

Each program runs through ``harness.build_report`` (which calls ``harness_calls.run_calls``, as
in the sandbox) and is read back with ``read_values``, so the facts are those the trusted
process gets: readiness with pending inputs, placement, counted traces and callbacks, traces
with dead code removed and their typed arithmetic. For each rule: the method passes, the cheat
that used to pass the name rule does not.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from course.checks import (
    Call,
    CheckOutcome,
    FunctionExercise,
    Values,
    blocks,
    computes_in,
    counts_observed,
    distinct_outputs,
    load_suite,
    measured_durations,
    on_host,
    one_pass,
    placed,
    read_values,
    selects,
)
from course.checks import harness as h
from course.checks.grading import UNEARNED, earned

PRELUDE = "import time\n\nimport jax\nimport jax.numpy as jnp\nimport numpy as np\n\n\n"


def _graded(tmp_path: Path, source: str, arg_sets: list[tuple], *, spec: dict | None = None,
            reference: str | None = None) -> Values:
    """``f`` of ``source`` called by the harness on ``arg_sets``, read as the trusted side
    reads it (with the reference's run as ``expected`` when given)."""

    def run(code: str, name: str) -> object:
        program = tmp_path / f"{name}.py"
        program.write_text(PRELUDE + code, encoding="utf-8")
        namespace: dict = {"__name__": "__main__"}
        exec(compile(program.read_text(), str(program), "exec"), namespace)  # noqa: S102
        calls = {"function": "f", "calls": [
            {"args": [{"kind": "array", "value": np.asarray(a)} if hasattr(a, "shape")
                      else {"kind": "scalar", "value": a} for a in args]}
            for args in arg_sets], "jaxpr": True, **(spec or {})}
        calls["tools"] = h.call_tools()
        return read_values(h.build_report(namespace, [], True, None, calls, str(program)))

    inputs = [Call(f"call {i}", tuple(args), "edge" if i == 0 else "random")
              for i, args in enumerate(arg_sets)]
    expected = run(reference, "reference") if reference is not None else None
    return Values(run(source, "main"), expected=expected, inputs=inputs, source=source)


SPEC = FunctionExercise("f")
VECTORS = [(np.arange(4, dtype=np.float32),), (np.ones(3, np.float32) * -2,)]


def test_on_host_wants_the_values_read_into_numpy(tmp_path: Path) -> None:
    rule = on_host("t")
    host = "def f(y):\n    e = np.array(y)\n    e[-1] = 1.0\n    return jnp.asarray(e)\n"
    assert rule.judge(_graded(tmp_path, host, VECTORS), SPEC) is None
    at = "def f(y):\n    return jnp.asarray(y.at[-1].set(1.0))\n"
    assert "never went to the host" in rule.judge(_graded(tmp_path, at, VECTORS), SPEC)


def test_selects_wants_where_not_an_if_a_cond_or_an_unused_where(tmp_path: Path) -> None:
    rule = selects("t")
    where = "def f(x):\n    return jnp.where(jnp.abs(x) <= 1, 0.5 * x**2, jnp.abs(x) - 0.5)\n"
    assert rule.judge(_graded(tmp_path, where, VECTORS), SPEC) is None
    python_if = ("def f(x):\n    jnp.where(True, 0.0, 1.0)\n    if jnp.all(x < 1):\n"
                 "        return 0.5 * x**2\n    return jnp.abs(x) - 0.5\n")
    assert "cannot trace" in rule.judge(_graded(tmp_path, python_if, VECTORS), SPEC)
    cond = ("def f(x):\n    return jax.lax.cond(jnp.all(x < 1), lambda x: 0.5 * x**2, "
            "lambda x: jnp.abs(x) - 0.5, x)\n")
    assert "lax.cond" in rule.judge(_graded(tmp_path, cond, VECTORS), SPEC)
    blend = ("def f(x):\n    jnp.where(True, 0.0, 1.0)\n    m = (jnp.abs(x) <= 1).astype(x.dtype)\n"
             "    return m * 0.5 * x**2 + (1 - m) * (jnp.abs(x) - 0.5)\n")
    assert "element by element" in rule.judge(_graded(tmp_path, blend, VECTORS), SPEC)


def test_computes_in_reads_the_dtype_the_product_ran_in(tmp_path: Path) -> None:
    counts = [(np.array([1, 2, 3], np.int8),), (np.array([127, -128], np.int8),)]
    rule = computes_in("mul", "int32,int32", "int32", "t")
    before = "def f(c):\n    return c.astype(jnp.int32) * 100\n"
    assert rule.judge(_graded(tmp_path, before, counts), SPEC) is None
    for cheat in ("def f(c):\n    return (c * 100).astype(jnp.int32)\n",
                  "def f(c):\n    return (c.astype(jnp.float32) * 100).astype(jnp.int32)\n"):
        assert "not mul(int32,int32)->int32" in rule.judge(_graded(tmp_path, cheat, counts),
                                                           SPEC)
    low = computes_in("dot_general", "bfloat16,bfloat16", "float32", "t")
    mats = [(np.ones((2, 3), np.float32), np.ones(3, np.float32))]
    bf16 = ("def f(w, v):\n    return jnp.dot(w.astype(jnp.bfloat16), v.astype(jnp.bfloat16), "
            "preferred_element_type=jnp.float32)\n")
    assert low.judge(_graded(tmp_path, bf16, mats), SPEC) is None
    rounded = ("def f(w, v):\n    w.astype(jnp.bfloat16)\n"
               "    return jnp.dot(w.astype(jnp.bfloat16).astype(jnp.float32), v)\n")
    assert "float32,float32" in low.judge(_graded(tmp_path, rounded, mats), SPEC)


def test_one_pass_compares_the_program_with_the_reference(tmp_path: Path) -> None:
    loss = ("def loss(w, x, y):\n    r = x @ w - y\n    return jnp.mean(r ** 2 + 0.1 * r ** 4)"
            "\n\n\n")
    one = loss + "def f(w, x, y):\n    return jax.value_and_grad(loss)(w, x, y)\n"
    jitted = loss + "@jax.jit\ndef f(w, x, y):\n    return jax.value_and_grad(loss)(w, x, y)\n"
    two = loss + "def f(w, x, y):\n    return loss(w, x, y), jax.grad(loss)(w, x, y)\n"
    args = [(np.ones(2, np.float32), np.ones((3, 2), np.float32), np.ones(3, np.float32))]
    rule = one_pass("t")
    assert rule.judge(_graded(tmp_path, one, args, reference=one), SPEC) is None
    assert rule.judge(_graded(tmp_path, jitted, args, reference=one), SPEC) is None
    problem = rule.judge(_graded(tmp_path, two, args, reference=one), SPEC)
    assert problem and "computed twice" in problem


BLOCKED = ("def f(a):\n    start = time.perf_counter()\n"
           "    s, m = jax.block_until_ready((jnp.sum(a), jnp.max(a)))\n"
           "    return s, m, time.perf_counter() - start\n")
UNBLOCKED = ("def f(a):\n    start = time.perf_counter()\n    s, m = jnp.sum(a), jnp.max(a)\n"
             "    return s, m, time.perf_counter() - start\n")


def test_pending_inputs_tell_a_blocked_timer_from_an_unblocked_one(tmp_path: Path) -> None:
    """No clock threshold of ours: the harness hands over arguments still being computed, so a
    function that does not block returns unfinished arrays, and its clock stops long before
    the wait it should have measured (a blocked time is not below an unblocked one)."""
    ready, timed = blocks((0, 1), "t"), measured_durations((2,), "t", blocked=True)
    good = _graded(tmp_path, BLOCKED, VECTORS, spec={"pending": True})
    pending = good.captured.calls.results[0].facts.pending
    assert pending is not None and pending > 0
    assert ready.judge(good, SPEC) is None and timed.judge(good, SPEC) is None
    bad = _graded(tmp_path, UNBLOCKED, VECTORS, spec={"pending": True})
    assert "still being computed" in ready.judge(bad, SPEC)
    assert "stopped before the work was done" in timed.judge(bad, SPEC)
    forged = BLOCKED.replace("time.perf_counter() - start\n", "0.002\n")
    assert "stopped before" in timed.judge(_graded(tmp_path, forged, VECTORS,
                                                   spec={"pending": True}), SPEC)


def _pending_call(source: str, *args: object) -> dict:
    """One harness call of ``f`` in ``source`` on ``args``, its arrays pending: the call's
    result entry."""
    calls, tools = h.calls_module(), h.call_tools()
    context = {"pending": calls._Pending(tools), "namespace": {}, "describe": repr}
    call = {"function": "f", "args": [
        {"kind": "array" if isinstance(a, np.ndarray) else "scalar", "value": a} for a in args]}
    namespace: dict = {}
    exec(PRELUDE + source, namespace)  # noqa: S102
    return calls._call(namespace["f"], call, h._Body(np), tools, {"pending": True}, context)


WAITS = ("def f(a, b):\n    start = time.perf_counter()\n    jax.block_until_ready((a, b))\n"
         "    waited = time.perf_counter() - start\n"
         "    return jnp.sum(a) + jnp.sum(b), waited\n")


def test_the_pending_wait_reported_is_the_calls_own() -> None:
    """The wait reported is when this call's arguments (all of them) became ready, read beside
    the call: a function that measures that wait itself reads the same, give or take a thread
    switch. (It used to be a wait timed apart from the call, which a host busy at that moment
    and quiet during the call made too long for a correct clock: transforms-01's first-vs-later
    failed so once, 2026-12-04.)"""
    result = _pending_call(WAITS, np.arange(4.0, dtype=np.float32), np.ones(3, np.float32))
    reported, measured = result["facts"]["pending"], result["outputs"][1]["value"]
    assert result["error"] is None and 0.01 < reported < 60
    assert abs(reported - measured) < 0.05 + 0.25 * measured, (reported, measured)


def test_a_function_that_deletes_its_argument_does_not_hide_the_wait() -> None:
    """The watch waits on the pending computations' own outputs, which the learner never holds:
    deleting (or donating) an argument leaves the wait readable."""
    deletes = "def f(a):\n    a.delete()\n    return 1.0\n"
    result = _pending_call(deletes, np.arange(4.0, dtype=np.float32))
    assert result["facts"]["pending"] is not None and result["facts"]["pending"] > 0


def test_no_array_argument_no_wait() -> None:
    result = _pending_call("def f(n):\n    return n + 1\n", 2)
    assert result["facts"]["pending"] is None and result["outputs"][0]["value"] == 3


def test_placed_reads_where_the_result_is_committed(tmp_path: Path) -> None:
    rule = placed("cpu:0", "t")
    put = ("def f(w, v):\n    return jnp.dot(jax.device_put(w, jax.devices('cpu')[0]), v)\n")
    pair = [(np.ones(3, np.float32), np.ones(3, np.float32))]
    assert rule.judge(_graded(tmp_path, put, pair), SPEC) is None
    default = "def f(w, v):\n    jax.devices('cpu')\n    return jnp.sum(w * v)\n"
    assert "not committed" in rule.judge(_graded(tmp_path, default, pair), SPEC)


COUNTED = """def f(n_scalars, n_shapes):
    traces, runs = [], []

    @jax.jit
    def square(v):
        traces.append(v.shape)
        jax.debug.callback(lambda value: runs.append(1), v)
        return v * v

    for value in range(n_scalars):
        square(jnp.float32(value))
    for length in range(1, n_shapes + 1):
        square(jnp.ones(length))
    jax.effects_barrier()
    return len(traces), len(runs)
"""


def test_counts_observed_compares_with_what_the_grader_counted(tmp_path: Path) -> None:
    rule = counts_observed("t")
    sets = [(3, 1), (0, 2)]
    good = _graded(tmp_path, COUNTED, sets, spec={"count": True, "jaxpr": False})
    assert good.captured.calls.results[0].facts.counted == (2, 4)
    assert rule.judge(good, SPEC) is None
    from_jit_name = COUNTED.replace("@jax.jit", "@jit").replace(
        "jax.debug.callback(", "callback(")
    aliased = "from jax import jit\nfrom jax.debug import callback\n\n\n" + from_jit_name
    assert rule.judge(_graded(tmp_path, aliased, sets, spec={"count": True, "jaxpr": False}),
                      SPEC) is None
    formula = "def f(n_scalars, n_shapes):\n    return (1 if n_scalars else 0) + n_shapes, " \
              "n_scalars + n_shapes\n"
    assert "observed, not computed" in rule.judge(
        _graded(tmp_path, formula, sets, spec={"count": True, "jaxpr": False}), SPEC)


def test_distinct_outputs_refuses_a_reused_key(tmp_path: Path) -> None:
    rule = distinct_outputs("t")
    split = ("def f(seed):\n    k = jax.random.split(jax.random.key(seed), 2)\n"
             "    return jax.random.uniform(k[0], (3,)), jax.random.uniform(k[1], (3,))\n")
    reused = ("def f(seed):\n    k = jax.random.key(seed)\n    jax.random.split(k, 2)\n"
              "    return jax.random.uniform(k, (3,)), jax.random.uniform(k, (3,))\n")
    assert rule.judge(_graded(tmp_path, split, [(1,)], spec={"jaxpr": False}), SPEC) is None
    assert "same key" in rule.judge(_graded(tmp_path, reused, [(1,)], spec={"jaxpr": False}),
                                    SPEC)


def test_no_check_earns_points_until_a_result_check_passes() -> None:
    """The starter earns 0: it runs, changes nothing and may use the right method, so those
    checks pass without points until one that compares results with the reference passes."""
    suite = load_suite(Path("course/content/phases/01-arrays/04-immutable-updates-and-indexing/"
                            "exercises/mask-tail/checks.py"))
    name = suite.function.function

    def outcome(title: str, status: str = "passed") -> CheckOutcome:
        return CheckOutcome(f"{name} {title}", status, 1.0 if status == "passed" else 0.0,
                            1.0, "", True)

    starter = [outcome("is defined and runs on every hidden input"),
               outcome("matches the reference on the edge cases", "failed"),
               outcome("matches the reference on inputs drawn at grading time", "failed"),
               outcome("leaves its arguments unchanged")]
    judged = earned(suite, starter)
    assert sum(o.points for o in judged) == 0
    assert judged[0].status == "passed" and judged[0].feedback == UNEARNED.format(fn=name)
    started = [*starter[:2], outcome("matches the reference on inputs drawn at grading time"),
               starter[3]]
    assert sum(o.points for o in earned(suite, started)) == 3


@pytest.mark.parametrize("title", ["`f` runs", "**f** runs", " "])
def test_a_check_title_is_plain_words(title: str) -> None:
    from course.tools.exercise_items import learner_facing

    assert not learner_facing(title) and learner_facing("f leaves its arguments unchanged")
