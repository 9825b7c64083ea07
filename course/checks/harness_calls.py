"""Call the learner's function on the hidden inputs and report what it did (a function exercise).

STANDALONE, like harness.py, next to which it is bound in the sandbox and which loads it by
path: the standard library, numpy and jax only. It reports, never judges: everything is asked
of the object each name is bound to when the program has ended (the final binding), and the
trusted process (``course.checks.facts``, ``course.checks.behaviour``) reads the facts:

- ``seconds``: the call's wall time, outputs blocked, by the harness's own clock;
- ``outputs``: per output, whether it was ready when the function returned, whether it is
  committed to a device and to which (``platform:id``);
- ``jaxpr``: what JAX traces from the call, dead code removed (an unused call is not in it),
  and ``partition``: the collectives of the compiled call (both read by harness_facts.py);
- ``pending``: with ``pending`` asked, each array argument is still being computed (a slow
  computation) when the call starts, and this is the seconds from the call's start until
  they all were ready, read by a thread that waits for them beside the call (a timer that
  blocks measures at least that, one that does not stops before it); null when no argument
  is an array or their readiness could not be read;
- ``counted``: with ``count`` asked, the traces of every function the call jitted and the runs
  of every ``jax.debug.callback`` it made, counted by wrappers the grader put around both;
- the report's ``targets`` and ``compiled`` (see ``run_calls``).
"""

from __future__ import annotations

import functools
import os
import threading
import time
import types

MAX_OUTPUTS = 16
MAX_MESSAGE = 2000
MAX_UNWRAP = 8
MAX_DEVICES = 8
PENDING_SIZE = 1800
"""The side of the matrix the pending computation multiplies: ~0.15 s on two CPU cores, longer
than compiling a small function, so a function that never blocks returns before it is done."""
_CLOCK = time.perf_counter
"""Taken before the program runs: a program that rebinds time.perf_counter does not move it."""
_THREAD = threading.Thread
WATCH_LIMIT_S = 120.0
"""How long the harness waits for a call's pending arguments after the call (they are ready
~0.15 s after the call starts; the run's own wall limit ends a run long before this)."""


def jax_tools(facts: types.ModuleType) -> dict:
    """jax's functions as imported, and ``facts`` (harness_facts.py as harness.py loaded it),
    before the learner's program runs, so a program that rebinds them (or os, importlib) does
    not change what the harness calls or reports."""
    import jax
    import jax.numpy as jnp

    try:  # internal: without it the traces keep their dead code (unused calls count)
        from jax._src.interpreters.partial_eval import dce_jaxpr
    except ImportError:  # pragma: no cover - a JAX that moved it

        def dce_jaxpr(jaxpr: object, used: list) -> tuple:
            return jaxpr, used

    return {"jit": jax.jit, "Array": jax.Array, "make_jaxpr": jax.make_jaxpr, "jax": jax,
            "jnp": jnp, "callback": jax.debug.callback, "barrier": jax.effects_barrier,
            "dce": dce_jaxpr, "facts": facts}


HOST_CASTS = ("bfloat16",)
"""Casts made on the host from a float32 or float64 array, bit for bit what XLA's convert
gives (round to nearest even, from the canonical dtype): on the device each new shape would
compile a convert of its own. Other casts and sources stay on the device (float16's NaN
payloads differ between numpy and XLA)."""
HOST_CAST_SOURCES = ("float32", "float64")


def arguments(call: dict) -> list:
    """Fresh arguments for one call: arrays become jax arrays (cast when the author asked).

    ``jax.device_put``, not ``jnp.asarray``: the same uncommitted array, but no computation
    compiled for each new shape (the graded run's own compiles are the learner's)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    args = []
    for arg in call["args"]:
        if arg["kind"] != "array":
            args.append(arg["value"])
            continue
        value, cast = np.asarray(arg["value"]), arg.get("cast")
        if cast in HOST_CASTS and value.dtype.name in HOST_CAST_SOURCES:
            with np.errstate(all="ignore"):
                value = value.astype(jax.dtypes.canonicalize_dtype(value.dtype))
                args.append(jax.device_put(value.astype(jnp.dtype(cast))))
        elif cast:
            args.append(jnp.asarray(value).astype(cast))
        else:
            args.append(jax.device_put(value))
    return args


def _placement(item: object, tools: dict) -> dict:
    facts: dict = {"ready": None, "committed": None, "devices": []}
    if isinstance(item, tools["Array"]):
        try:
            facts["ready"] = bool(item.is_ready())
            facts["committed"] = bool(item.committed)
            facts["devices"] = sorted(f"{d.platform}:{d.id}" for d in item.devices())[
                :MAX_DEVICES]
        except Exception:  # noqa: BLE001, S110 - a deleted array has no placement
            pass
    return facts


def _items(value: object) -> list:
    return list(value)[:MAX_OUTPUTS] if isinstance(value, tuple | list) else [value]


def outputs(value: object, body: object, tools: dict) -> tuple[list[dict], bool]:
    entries = []
    for item in _items(value):
        entry = body.entry(item)  # type: ignore[attr-defined]
        entry["jax_array"] = isinstance(item, tools["Array"])
        entries.append(entry)
    return entries, isinstance(value, tuple | list)


def target(function: object, program: str) -> dict:
    """Where the object the harness calls was written: a function's code (the code that runs,
    so a wrapper is reported, not what it claims to wrap), else what a jax.jit or
    functools.partial wraps. The trusted side reads the rules' source at that line."""
    obj = function
    for _ in range(MAX_UNWRAP):
        code = getattr(obj, "__code__", None)
        if code is not None:
            return {"line": int(code.co_firstlineno), "name": str(code.co_name)[:200],
                    "in_program": os.path.abspath(code.co_filename) == program}
        inner = getattr(obj, "__wrapped__", None) or getattr(obj, "func", None)
        if inner is None or inner is obj:
            break
        obj = inner
    return {"line": None, "name": type(function).__qualname__[:200], "in_program": False}


class _Counter:
    """Wrappers around jax.jit and jax.debug.callback, installed only while the learner's
    function runs: every trace of a function it jits and every run of a callback it makes
    is counted (also where main.py bound ``jit`` or ``callback`` by name)."""

    def __init__(self, tools: dict, namespace: dict) -> None:
        self.tools, self.namespace = tools, namespace
        self.traces = self.callbacks = 0
        self.saved: list[tuple[object, str, object]] = []

    def jit(self, fun: object = None, /, **options: object) -> object:
        if fun is None:
            return lambda f: self.jit(f, **options)

        def traced(*args: object, **kwargs: object) -> object:
            self.traces += 1
            return fun(*args, **kwargs)

        functools.update_wrapper(traced, fun)
        return self.tools["jit"](traced, **options)

    def callback(self, callback: object, *args: object, **kwargs: object) -> object:
        def counted(*values: object, **named: object) -> object:
            self.callbacks += 1
            return callback(*values, **named)

        return self.tools["callback"](counted, *args, **kwargs)

    def __enter__(self) -> _Counter:
        jax = self.tools["jax"]
        swaps = {id(self.tools["jit"]): self.jit, id(self.tools["callback"]): self.callback}
        places = [(jax, "jit"), (jax.debug, "callback")]
        places += [(self.namespace, n) for n, v in list(self.namespace.items())
                   if id(v) in swaps]
        for owner, name in places:
            old = owner[name] if isinstance(owner, dict) else getattr(owner, name)
            self.saved.append((owner, name, old))
            new = swaps.get(id(old), old)
            if isinstance(owner, dict):
                owner[name] = new
            else:
                setattr(owner, name, new)
        return self

    def __exit__(self, *exc: object) -> None:
        for owner, name, old in reversed(self.saved):
            if isinstance(owner, dict):
                owner[name] = old
            else:
                setattr(owner, name, old)
        try:
            self.tools["barrier"]()  # callbacks run asynchronously: wait before counting
        except BaseException:  # noqa: BLE001, S110 - a failed callback is the learner's
            pass


class _Pending:
    """Each array argument made to wait for a slow computation when the call starts: its
    values unchanged, ready only ~0.15 s after dispatch on a quiet host. Nothing is timed
    ahead: each call's ``_Watch`` reads when that call's own arguments became ready, so a
    host busy before the call (or during it) moves both that wait and a blocked clock."""

    def __init__(self, tools: dict) -> None:
        jnp = tools["jnp"]
        self.matrix = jnp.full((PENDING_SIZE, PENDING_SIZE), 1e-3, jnp.float32)

        def wait(value: object, m: object) -> tuple[object, object]:
            total = jnp.sum(jnp.tanh(m @ m))  # never above PENDING_SIZE: the select keeps value
            return jnp.where(total > 1e30, jnp.zeros_like(value), value), total

        self.wait = tools["jit"](wait)

    def __call__(self, args: list) -> tuple[list, _Watch]:
        """The arguments made to wait, and a watch on the computations they wait for (its own
        outputs, which the learner never holds: a function that deletes or donates its
        arguments does not hide when they were ready)."""
        made, done = [], []
        for arg in args:
            if hasattr(arg, "shape"):
                value, total = self.wait(arg, self.matrix)
                made.append(value)
                done.append(total)
            else:
                made.append(arg)
        return made, _Watch(done)


class _Watch:
    """A thread that blocks on a call's pending computations and reads the clock when the
    last is done; ``seconds`` is that moment from ``start`` (the call's start)."""

    def __init__(self, done: list) -> None:
        self.done, self.started, self.ready_at = done, None, None
        self.thread = _THREAD(target=self._wait, name="pathways-pending-watch", daemon=True)

    def _wait(self) -> None:
        try:
            for item in self.done:
                item.block_until_ready()
            self.ready_at = _CLOCK()
        except BaseException:  # noqa: BLE001, S110 - an unread wait is reported as none
            pass

    def start(self) -> None:
        if self.done:
            self.started = _CLOCK()
            self.thread.start()

    def seconds(self) -> float | None:
        if self.started is None:
            return None
        self.thread.join(WATCH_LIMIT_S)
        if self.ready_at is None:
            return None
        return max(0.0, self.ready_at - self.started)


def _timed(function: object, args: list, tools: dict) -> tuple[object, float, list[dict]]:
    """The call, its wall time blocked until the outputs are ready, and each output's
    placement (readiness read when the function returned, before the harness blocks)."""
    start = _CLOCK()
    value = function(*args)
    placed = [_placement(item, tools) for item in _items(value)]
    for item in _items(value):
        ready = getattr(item, "block_until_ready", None)
        if callable(ready):
            ready()
    return value, _CLOCK() - start, placed


def _shardings(value: object) -> list:
    """Each output's sharding: its mesh axes per dimension (a NamedSharding's spec), how many
    devices hold a piece, and whether every device holds all of it."""
    found = []
    for item in _items(value)[:MAX_OUTPUTS]:
        sharding = getattr(item, "sharding", None)
        if sharding is None:
            found.append(None)
            continue
        spec = getattr(sharding, "spec", None)  # "data;;model+x": dims by ";", axes by "+"
        axes = None if spec is None else ";".join(
            "" if entry is None else "+".join(str(a)[:40] for a in (
                entry if isinstance(entry, tuple) else (entry,))[:8])
            for entry in tuple(spec)[:16])
        found.append({"axes": axes, "devices": len(sharding.device_set),
                      "replicated": bool(sharding.is_fully_replicated)})
    return found


def _substitute(namespace: dict, sources: dict, tools: dict) -> None:
    """Rebind each name to the function the trusted side drew for this grading."""
    for name, source in sources.items():
        scope = {"jax": tools["jax"], "jnp": tools["jnp"]}
        exec(source, scope)  # noqa: S102 - the trusted side's code, drawn at grading time
        namespace[name] = scope[name]


def _call(function: object, call: dict, body: object, tools: dict, spec: dict,
          context: dict) -> dict:
    result: dict = {"outputs": None, "tuple": False, "error": None, "jit": None, "facts": {}}
    args = arguments(call)
    watch = None
    if context.get("pending") is not None:
        args, watch = context["pending"](args)
    counter = _Counter(tools, context["namespace"]) if spec.get("count") else None
    try:
        if not callable(function):
            raise NameError(f"the program defines no function `{call.get('function')}`")
        if watch is not None:
            watch.start()
        if counter is not None:
            with counter:
                value, seconds, placed = _timed(function, args, tools)
            result["facts"]["counted"] = {"traces": counter.traces,
                                          "callbacks": counter.callbacks}
        else:
            value, seconds, placed = _timed(function, args, tools)
        result["facts"]["seconds"], result["facts"]["outputs"] = seconds, placed
        if spec.get("partition"):
            result["facts"]["shardings"] = _shardings(value)
        result["outputs"], result["tuple"] = outputs(value, body, tools)
    except BaseException as exc:  # noqa: BLE001 - the learner's error is reported
        result["error"] = context["describe"](exc)
    if watch is not None:
        result["facts"]["pending"] = watch.seconds()
    result["inputs_after"] = [body.entry(arg) for arg in args]  # type: ignore[attr-defined]
    return result


def _jit_call(function: object, call: dict, spec: dict, body: object, tools: dict,
              describe: object) -> dict:
    jitted: dict = {"outputs": None, "tuple": False, "error": None}
    try:
        compiled = tools["jit"](function, static_argnums=tuple(spec.get("static", ())))
        jitted["outputs"], jitted["tuple"] = outputs(compiled(*arguments(call)), body, tools)
    except BaseException as exc:  # noqa: BLE001
        jitted["error"] = describe(exc)  # type: ignore[operator]
    return jitted


def run_calls(namespace: dict, spec: dict, body: object, program: str,
              describe: types.FunctionType) -> dict:
    """Call the learner's function on every hidden input; report outputs, never judge them.

    With ``jaxpr`` what JAX traces from each call, with ``cache`` the compilations a jitted
    function made during the hidden calls (its cache emptied first), with ``count`` the
    traces and callbacks of each call, with ``pending`` each call's arguments made to wait,
    with ``partition`` each output's sharding and the collectives of the compiled call.
    ``spec["tools"]``: ``jax_tools(...)`` as taken before the program ran (harness.call_tools);
    ``describe(exc)``: an exception as the report's error entry."""
    tools = spec["tools"]
    _substitute(namespace, spec.get("substitutes") or {}, tools)
    report: dict = {"function": spec["function"], "results": [], "targets": {},
                    "compiled": {}, "defined": callable(namespace.get(spec["function"]))}
    if not report["defined"]:
        return report
    names = [c.get("function") or spec["function"] for c in spec["calls"]]
    counted = sorted(set(names) | set(spec.get("watch") or ()))  # helpers it calls, too
    for name in counted:
        bound = namespace.get(name)
        if callable(bound):
            report["targets"][name] = target(bound, program)
            if callable(getattr(bound, "clear_cache", None)):
                bound.clear_cache()  # no trace of the program's own (a substitute is new)
    context = {"namespace": namespace, "describe": describe,
               "pending": _Pending(tools) if spec.get("pending") else None}
    report["results"] = [_call(namespace.get(name), dict(call, function=name), body, tools,
                               spec, context)
                         for name, call in zip(names, spec["calls"], strict=True)]
    for name in counted:
        size = getattr(namespace.get(name), "_cache_size", None)
        if spec.get("cache") and callable(size):
            try:
                report["compiled"][name] = int(size())
            except BaseException:  # noqa: BLE001, S110 - no count is a fact too
                pass
    facts = tools["facts"]
    for name, call, result in zip(names, spec["calls"], report["results"], strict=True):
        function = namespace.get(name)
        if spec.get("jaxpr") and callable(function):
            result["facts"]["jaxpr"] = facts.jaxpr_facts(function, arguments(call), tools)
        if spec.get("partition") and callable(function):
            result["facts"]["partition"] = facts.partition_facts(function, arguments(call), tools)
        if spec.get("jit"):
            result["jit"] = _jit_call(function, call, spec, body, tools, describe)
    return report
