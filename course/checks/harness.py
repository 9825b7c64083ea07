"""Run a learner's program as ``__main__`` and report the values that the checks need.

STANDALONE: this file is copied into the grading sandbox on its own. It uses the standard
library and numpy only and imports nothing from jax-pathways, so learner code never sees the
hidden checks, and a broken project install cannot break a run.

    python harness.py --names masked,x --fd 3 main.py     (the grader: an inherited descriptor)
    python harness.py --names masked,x --out values.bin main.py
    python harness.py --calls calls.bin --fd 3 main.py           (a function exercise)

With ``--calls`` (written by ``course.checks.encode_calls`` in the trusted process), the file
is read and removed before the program runs; after the program ran to its end, the harness
calls the learner's function on each hidden input (and again under ``jax.jit`` when asked) and
reports what came back, with facts about the object it called (``course.checks.facts``). It
only reports: every comparison happens in the trusted process.

The report (read it with ``course.checks.read_values``) is::

    b"PWV1\\n" + 8-byte big-endian header length + header (UTF-8 JSON) + .npy blobs

header = {"version": 1, "completed": bool, "error": null | {"type", "message", "line",
"text"}, "names": {name: ENTRY}, "calls": null | {"function", "defined", "results": [
{"outputs": [ENTRY] | null, "tuple", "error": null | {"type", "message", "line", "text"},
"inputs_after": [ENTRY], "jit": null | {"outputs", "tuple", "error"}, "facts": {"seconds",
"jaxpr": {"eqns", "primitives": {name: count}} | {"error"}}}], "targets": {name: {"line",
"name", "in_program"}}, "compiled": {name: int}}}, where ENTRY is
{"kind": "array", "offset", "length", "type", "dtype"} | {"kind": "scalar", "value", "type"} |
{"kind": "missing"} | {"kind": "unsupported", "type", "reason"}; a call's output entries also
carry "jax_array" (bool).
Offsets count from the first byte after the header. Exit status: 0 when the program ran to
its end, 1 when it raised (the report is still written), 2 when the harness itself was misused.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import struct
import sys
import time
import traceback
import types

MAGIC = b"PWV1\n"
CALLS_MAGIC = b"PWC1\n"
MAX_CALLS_BYTES = 64 * 1024 * 1024
MAX_OUTPUTS = 16
MAX_ARRAY_BYTES = 16 * 1024 * 1024
MAX_MESSAGE = 2000
SCALARS = (bool, int, float, str, type(None))
_CLOCK = time.perf_counter
"""Taken before the program runs: a program that rebinds time.perf_counter does not move it."""


def _learner_frames(exc: BaseException, program: str) -> list[tuple[int, str]]:
    """(line, text) of the traceback frames that lie in the learner's file, outermost first."""
    frames = []
    for frame in traceback.extract_tb(exc.__traceback__):
        if os.path.abspath(frame.filename) == program:
            frames.append((frame.lineno or 0, (frame.line or "").strip()))
    return frames


def _describe_error(exc: BaseException, program: str, source_lines: list[str]) -> dict:
    frames = _learner_frames(exc, program)
    line = frames[-1][0] if frames else None
    if isinstance(exc, SyntaxError) and exc.lineno:
        line = exc.lineno
    text = source_lines[line - 1].strip() if line and 0 < line <= len(source_lines) else ""
    message = str(exc)
    if isinstance(exc, SyntaxError):
        message = exc.msg or message
    return {
        "type": type(exc).__name__,
        "message": message[:MAX_MESSAGE],
        "line": line,
        "text": text[:MAX_MESSAGE],
    }


def _print_trimmed_traceback(exc: BaseException, program: str, error: dict) -> None:
    """stderr shows only the learner's own frames: the harness and libraries are noise."""
    name = os.path.basename(program)
    lines = ["Traceback (most recent call last):"]
    for lineno, text in _learner_frames(exc, program):
        lines.append(f'  File "{name}", line {lineno}')
        if text:
            lines.append(f"    {text}")
    if isinstance(exc, SyntaxError):
        lines.append(f'  File "{name}", line {error["line"]}')
        lines.append(f"    {error['text']}")
    lines.append(f"{error['type']}: {error['message']}")
    print("\n".join(lines), file=sys.stderr)


def _capture(value: object, np: types.ModuleType) -> tuple[dict, bytes]:
    type_name = f"{type(value).__module__}.{type(value).__qualname__}"
    if isinstance(value, SCALARS):
        if isinstance(value, str):
            value = value[:MAX_MESSAGE]
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**63:
            value = float(value)
        return {"kind": "scalar", "value": value, "type": type_name}, b""
    try:
        array = np.asarray(value)
    except Exception as exc:  # noqa: BLE001 - any failure means "not an array"
        return {"kind": "unsupported", "type": type_name,
                "reason": f"cannot be read as an array ({type(exc).__name__})"}, b""
    if array.dtype.hasobject:
        return {"kind": "unsupported", "type": type_name,
                "reason": "holds Python objects, not numbers"}, b""
    if array.nbytes > MAX_ARRAY_BYTES:
        return {"kind": "unsupported", "type": type_name,
                "reason": f"is too large ({array.nbytes} bytes)"}, b""
    dtype = str(array.dtype)
    if type(array.dtype).__module__.split(".")[0] != "numpy":  # bfloat16 and friends
        array = array.astype(np.float32)
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return {"kind": "array", "type": type_name, "dtype": dtype}, buffer.getvalue()


class _Body:
    """The report's blobs, appended in order; entries point into it by offset."""

    def __init__(self, np: types.ModuleType) -> None:
        self.np = np
        self.blobs: list[bytes] = []
        self.offset = 0

    def entry(self, value: object) -> dict:
        entry, blob = _capture(value, self.np)
        if blob:
            entry.update(offset=self.offset, length=len(blob))
            self.blobs.append(blob)
            self.offset += len(blob)
        return entry


def read_calls(path: str) -> dict:
    """The hidden inputs (see ``course.checks.encode_calls``), as numpy arrays and scalars."""
    import numpy as np

    with open(path, "rb") as handle:
        payload = handle.read(MAX_CALLS_BYTES + 1)
    if len(payload) > MAX_CALLS_BYTES or not payload.startswith(CALLS_MAGIC):
        raise ValueError("the calls file is not a PWC1 file")
    start = len(CALLS_MAGIC) + 8
    (length,) = struct.unpack(">Q", payload[len(CALLS_MAGIC):start])
    spec = json.loads(payload[start:start + length].decode("utf-8"))
    body = payload[start + length:]
    for call in spec["calls"]:
        for arg in call["args"]:
            if arg["kind"] == "array":
                blob = body[arg["offset"]:arg["offset"] + arg["length"]]
                arg["value"] = np.lib.format.read_array(io.BytesIO(blob), allow_pickle=False)
    return spec


def _arguments(call: dict) -> list:
    """Fresh arguments for one call: arrays become jax arrays (cast when the author asked)."""
    import jax.numpy as jnp

    args = []
    for arg in call["args"]:
        if arg["kind"] == "array":
            value = jnp.asarray(arg["value"])
            args.append(value.astype(arg["cast"]) if arg.get("cast") else value)
        else:
            args.append(arg["value"])
    return args


def jax_tools() -> dict:
    """``jax.jit`` and ``jax.Array`` as imported before the learner's program runs, so a
    program that rebinds them does not change what the harness calls or reports."""
    import jax
    import jax.numpy as jnp

    return {"jit": jax.jit, "Array": jax.Array, "make_jaxpr": jax.make_jaxpr, "jax": jax,
            "jnp": jnp}


def _outputs(value: object, body: _Body, tools: dict) -> tuple[list[dict], bool]:
    is_tuple = isinstance(value, tuple | list)
    items = list(value)[:MAX_OUTPUTS] if is_tuple else [value]
    entries = []
    for item in items:
        entry = body.entry(item)
        entry["jax_array"] = isinstance(item, tools["Array"])
        entries.append(entry)
    return entries, is_tuple


MAX_PRIMITIVES = 64
MAX_EQNS = 1_000_000
MAX_UNWRAP = 8


def _target(function: object, program: str) -> dict:
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


def _walk_jaxpr(jaxpr: object, names: dict, depth: int = 0) -> int:
    """Equations of ``jaxpr`` and of every jaxpr nested in its equations' parameters."""
    if depth > 32:
        return 0
    count = 0
    for eqn in getattr(jaxpr, "eqns", ()):
        count += 1
        name = str(eqn.primitive.name)[:56]
        if eqn.params.get("reverse") is True:
            name += "[reverse]"  # a scan run backwards: what transposing a loop makes
        names[name] = names.get(name, 0) + 1
        for value in eqn.params.values():
            for item in value if isinstance(value, tuple | list) else (value,):
                inner = getattr(item, "jaxpr", item)
                if hasattr(inner, "eqns"):
                    count += _walk_jaxpr(inner, names, depth + 1)
        if count > MAX_EQNS:
            break
    return count


def _jaxpr_facts(function: object, args: list, tools: dict) -> dict:
    """The size and primitives of what JAX traces from one call (Python scalars static)."""
    static = tuple(i for i, a in enumerate(args) if not hasattr(a, "shape"))
    try:
        closed = tools["make_jaxpr"](function, static_argnums=static)(*args)
    except BaseException as exc:  # noqa: BLE001 - a function JAX cannot trace is a fact
        return {"error": f"{type(exc).__name__}: {exc}"[:MAX_MESSAGE]}
    names: dict = {}
    count = _walk_jaxpr(closed.jaxpr, names)
    kept = sorted(names)[:MAX_PRIMITIVES]
    return {"eqns": min(count, MAX_EQNS), "primitives": {k: names[k] for k in kept}}


def _timed(function: object, args: list) -> tuple[object, float]:
    """The call and its wall time, blocked until the outputs are ready (a fact the trusted
    side compares with the durations a timing exercise reports)."""
    start = _CLOCK()
    value = function(*args)
    for item in value if isinstance(value, tuple | list) else (value,):
        ready = getattr(item, "block_until_ready", None)
        if callable(ready):
            ready()
    return value, _CLOCK() - start


COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "collective-permute",
               "all-to-all")
MAX_HLO_CHARS = 4_000_000


def _shardings(value: object) -> list:
    """Each output's sharding: its mesh axes per dimension (a NamedSharding's spec), how many
    devices hold a piece, and whether every device holds all of it."""
    found = []
    for item in (value if isinstance(value, tuple | list) else (value,))[:MAX_OUTPUTS]:
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


def _partition_facts(function: object, args: list, tools: dict) -> dict:
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


def _substitute(namespace: dict, sources: dict, tools: dict) -> None:
    """Rebind each name to the function the trusted side drew for this grading."""
    for name, source in sources.items():
        scope = {"jax": tools["jax"], "jnp": tools["jnp"]}
        exec(source, scope)  # noqa: S102 - the trusted side's code, drawn at grading time
        namespace[name] = scope[name]


def _call(function: object, call: dict, body: _Body, tools: dict, program: str,
          lines: list[str], partition: bool = False) -> dict:
    result: dict = {"outputs": None, "tuple": False, "error": None, "jit": None, "facts": {}}
    args = _arguments(call)
    try:
        if not callable(function):
            raise NameError(f"the program defines no function `{call.get('function')}`")
        value, result["facts"]["seconds"] = _timed(function, args)
        if partition:
            result["facts"]["shardings"] = _shardings(value)
        result["outputs"], result["tuple"] = _outputs(value, body, tools)
    except BaseException as exc:  # noqa: BLE001 - the learner's error is reported
        result["error"] = _describe_error(exc, program, lines)
    result["inputs_after"] = [body.entry(arg) for arg in args]
    return result


def _jit_call(function: object, call: dict, spec: dict, body: _Body, tools: dict,
              program: str, lines: list[str]) -> dict:
    jitted: dict = {"outputs": None, "tuple": False, "error": None}
    try:
        compiled = tools["jit"](function, static_argnums=tuple(spec.get("static", ())))
        jitted["outputs"], jitted["tuple"] = _outputs(compiled(*_arguments(call)), body, tools)
    except BaseException as exc:  # noqa: BLE001
        jitted["error"] = _describe_error(exc, program, lines)
    return jitted


def run_calls(namespace: dict, spec: dict, body: _Body, program: str) -> dict:
    """Call the learner's function on every hidden input; report outputs, never judge them.

    Everything is asked of the object each name is bound to when the program has ended (the
    final binding), never of a ``def`` in the source: where it was written, each call's
    blocked wall time, with ``jaxpr`` what JAX traces from each call, with ``cache`` the
    compilations a jitted function made during the hidden calls (its cache emptied first)."""
    tools = spec.get("tools") or jax_tools()
    with open(program, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    _substitute(namespace, spec.get("substitutes") or {}, tools)
    report: dict = {"function": spec["function"], "results": [], "targets": {},
                    "compiled": {}, "defined": callable(namespace.get(spec["function"]))}
    if not report["defined"]:
        return report
    names = [c.get("function") or spec["function"] for c in spec["calls"]]
    counted = sorted(set(names) | set(spec.get("watch") or ()))  # helpers it calls, too
    for name in counted:
        target = namespace.get(name)
        if callable(target):
            report["targets"][name] = _target(target, program)
            if callable(getattr(target, "clear_cache", None)):
                target.clear_cache()  # no trace of the program's own (a substitute is new)
    report["results"] = [_call(namespace.get(name), dict(call, function=name), body, tools,
                               program, lines, bool(spec.get("partition")))
                          for name, call in zip(names, spec["calls"], strict=True)]
    for name in counted:
        size = getattr(namespace.get(name), "_cache_size", None)
        if spec.get("cache") and callable(size):
            try:
                report["compiled"][name] = int(size())
            except BaseException:  # noqa: BLE001, S110 - no count is a fact too
                pass
    for name, call, result in zip(names, spec["calls"], report["results"], strict=True):
        function = namespace.get(name)
        if spec.get("jaxpr") and callable(function):
            result["facts"]["jaxpr"] = _jaxpr_facts(function, _arguments(call), tools)
        if spec.get("partition") and callable(function):
            result["facts"]["partition"] = _partition_facts(function, _arguments(call), tools)
        if spec.get("jit"):
            result["jit"] = _jit_call(function, call, spec, body, tools, program, lines)
    return report


def build_report(namespace: dict, names: list[str], completed: bool, error: dict | None,
                 calls: dict | None = None, program: str = "") -> bytes:
    import numpy as np

    body = _Body(np)
    entries: dict[str, dict] = {}
    for name in names:
        entries[name] = body.entry(namespace[name]) if name in namespace else {"kind": "missing"}
    called = run_calls(namespace, calls, body, program) if calls and completed else None
    header = json.dumps({"version": 1, "completed": completed, "error": error,
                         "names": entries, "calls": called}).encode()
    return MAGIC + struct.pack(">Q", len(header)) + header + b"".join(body.blobs)


def run_program(program: str) -> tuple[dict, bool, dict | None, BaseException | None]:
    """Execute ``program`` as __main__; keep its namespace even when it raises."""
    with open(program, encoding="utf-8") as handle:
        source = handle.read()
    lines = source.splitlines()
    module = types.ModuleType("__main__")
    module.__file__ = program
    namespace = module.__dict__
    namespace["__builtins__"] = __builtins__
    sys.modules["__main__"] = module
    sys.argv = [program]
    sys.path[0] = os.path.dirname(program)
    try:
        code = compile(source, program, "exec")
        exec(code, namespace)  # noqa: S102 - running the learner's program is the job
    except SystemExit as exc:
        if exc.code in (None, 0):
            return namespace, True, None, None
        error = {"type": "SystemExit", "message": f"exit status {exc.code}"[:MAX_MESSAGE],
                 "line": None, "text": ""}
        frames = _learner_frames(exc, program)
        if frames:
            error["line"], error["text"] = frames[-1]
        return namespace, False, error, None
    except BaseException as exc:  # noqa: BLE001 - a learner's error of any kind is reported
        return namespace, False, _describe_error(exc, program, lines), exc
    return namespace, True, None, None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("program")
    parser.add_argument("--names", default="", help="comma-separated variable names to report")
    parser.add_argument("--calls", help="the hidden inputs of a function exercise (PWC1 file)")
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--fd", type=int, help="inherited file descriptor for the report")
    target.add_argument("--out", help="file to write the report to")
    args = parser.parse_args(argv)
    names = [n for n in args.names.split(",") if n]
    program = os.path.abspath(args.program)
    if args.fd is not None:
        try:
            sink = os.fdopen(args.fd, "wb", closefd=True)
        except OSError as exc:
            print(f"harness: file descriptor {args.fd} is not open: {exc}", file=sys.stderr)
            return 2
    else:
        sink = open(args.out, "wb")  # noqa: SIM115 - closed below, after the program runs
    if not os.path.isfile(program):
        print(f"harness: no program file {program}", file=sys.stderr)
        sink.close()
        return 2
    calls = None
    if args.calls:
        try:
            calls = read_calls(args.calls)
        except (OSError, ValueError, KeyError, TypeError) as calls_exc:
            print(f"harness: unusable calls file: {calls_exc!r}", file=sys.stderr)
            sink.close()
            return 2
        try:
            os.unlink(args.calls)  # the program never sees the file
        except OSError:
            pass
        try:
            calls["tools"] = jax_tools()
        except ImportError as import_exc:
            print(f"harness: a function exercise needs jax: {import_exc!r}", file=sys.stderr)
            sink.close()
            return 2
    namespace, completed, error, exc = run_program(program)
    sys.stdout.flush()
    if exc is not None and error is not None:
        _print_trimmed_traceback(exc, program, error)
    try:
        report = build_report(namespace, names, completed, error, calls, program)
    except BaseException as capture_exc:  # noqa: BLE001 - a broken value must not lose the run
        report = build_report({}, names, completed, error)
        print(f"harness: could not capture values: {capture_exc!r}", file=sys.stderr)
    with sink:
        sink.write(report)
    return 0 if completed else 1


if __name__ == "__main__":
    sys.exit(main())
