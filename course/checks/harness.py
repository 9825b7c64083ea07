"""Run a learner's program as ``__main__`` and report the values that the checks need.

STANDALONE: this file and harness_calls.py (which calls a function exercise's function) are
bound into the grading sandbox on their own. They use the standard library, numpy and (for a
function exercise) jax only and import nothing from jax-pathways, so learner code never sees
the hidden checks, and a broken project install cannot break a run.

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
"outputs": [{"ready", "committed", "devices"}], "pending", "counted": {"traces",
"callbacks"}, "jaxpr": {"eqns", "primitives": {name: count}, "typed": {op: count}} |
{"error"}}}], "targets": {name: {"line", "name", "in_program"}}, "compiled": {name: int}}}
(harness_calls.py says what each fact is), where ENTRY is
{"kind": "array", "offset", "length", "type", "dtype"} | {"kind": "scalar", "value", "type"} |
{"kind": "missing"} | {"kind": "unsupported", "type", "reason"}; a call's output entries also
carry "jax_array" (bool).
Offsets count from the first byte after the header. Exit status: 0 when the program ran to
its end, 1 when it raised (the report is still written), 2 when the harness itself was misused.

Every run compiles as harness_jax.py sets it up (XLA's ``CPU_COMPILE_FLAGS`` when the program's
JAX starts its CPU backend, one MLIR context a thread), so the grader and `course check`
compile alike.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import struct
import sys
import traceback
import types

MAGIC = b"PWV1\n"
CALLS_MAGIC = b"PWC1\n"
MAX_CALLS_BYTES = 64 * 1024 * 1024
MAX_ARRAY_BYTES = 16 * 1024 * 1024
MAX_MESSAGE = 2000
SCALARS = (bool, int, float, str, type(None))


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


def sibling(filename: str) -> types.ModuleType:
    """A harness file bound next to this one in the sandbox (``HARNESS_SIBLINGS``), loaded by
    path once: ``python -I`` puts no script directory on sys.path, and the program must not
    import it."""
    module = _SIBLINGS.get(filename)
    if module is None:
        import importlib.util

        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), filename)
        spec = importlib.util.spec_from_file_location(f"pathways_{filename[:-3]}", path)
        if spec is None or spec.loader is None:
            raise ImportError(f"no {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _SIBLINGS[filename] = module
    return module


_SIBLINGS: dict[str, types.ModuleType] = {}


def set_up_jax() -> None:
    """harness_jax.py's settings for this run's JAX (compile flags, one MLIR context a thread):
    now if JAX is imported (a warm run, a function exercise's tools), else when the program
    imports it."""
    sibling("harness_jax.py").set_up()


def calls_module() -> types.ModuleType:
    """harness_calls.py: calls a function exercise's function and reports what it did."""
    return sibling("harness_calls.py")


def call_tools() -> dict:
    """What the calls use, taken before the program runs: jax's functions as imported and
    harness_facts.py (what JAX traces and compiles from a call) as loaded."""
    return calls_module().jax_tools(sibling("harness_facts.py"))


def build_report(namespace: dict, names: list[str], completed: bool, error: dict | None,
                 calls: dict | None = None, program: str = "") -> bytes:
    import numpy as np

    body = _Body(np)
    entries: dict[str, dict] = {}
    for name in names:
        entries[name] = body.entry(namespace[name]) if name in namespace else {"kind": "missing"}
    called = None
    if calls and completed:
        with open(program, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
        called = calls_module().run_calls(namespace, calls, body, program,
                                          lambda exc: _describe_error(exc, program, lines))
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
            calls["tools"] = call_tools()
        except ImportError as import_exc:
            print(f"harness: a function exercise needs jax: {import_exc!r}", file=sys.stderr)
            sink.close()
            return 2
    set_up_jax()
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
