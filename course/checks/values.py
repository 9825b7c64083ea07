"""Read the harness's report safely, in the trusted process.

The bytes come from a sandbox that ran learner code, so they are untrusted: no pickle, bounded
sizes, and any malformed input is one clear ``ValuesError`` instead of a crash deep in numpy.
Every cost is bounded before it is paid: the header's size, its JSON nesting and integer
digits are checked before ``json`` builds anything, each array's .npy header must describe
exactly the bytes it points at, and blobs may neither overlap nor repeat, so the arrays decoded
never total more than the report itself (one blob named 256 times would otherwise be decoded
256 times).
"""

from __future__ import annotations

import io
import json
import math
import struct
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from course.checks.facts import CallFacts, FactsError, ReportFacts, call_facts, report_facts
from course.errors import CourseError

MAGIC = b"PWV1\n"
MAX_PAYLOAD = 64 * 1024 * 1024
MAX_HEADER = 1024 * 1024
MAX_NAMES = 256
MAX_NAME_CHARS = 200
MAX_DEPTH = 8
"""The harness's header nests at most 7 deep (header, calls, results, call, jit, outputs,
entry); anything deeper is not ours."""
MAX_INT_DIGITS = 20
"""The harness sends integers beyond 2**63 as floats; longer digit strings are an attack."""
MAX_ELEMENTS = 1 << 28
PARSE_BUDGET_S = 2.0
"""CPU seconds of this thread the whole parse of one report may take (each step is linear in
the report's size, so a report within its size bounds takes milliseconds; the budget is the
backstop: a parse past it is abandoned at the next step, not finished)."""


class ValuesError(CourseError):
    """The harness report is missing, truncated, oversized or malformed."""


class BudgetExceeded(ValuesError):
    """Reading the report took more of the trusted thread's CPU than its budget: the job is not
    gradable (never the learner's fault, never retried on another worker's CPU)."""


class _Budget:
    """The trusted thread's CPU deadline for one parse, checked between its (linear) steps."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.start = time.thread_time()

    def check(self, step: str) -> None:
        spent = time.thread_time() - self.start
        if spent > self.seconds:
            raise BudgetExceeded(f"the grading report took {spent:.2f} s of the grader's CPU "
                                 f"(budget {self.seconds:g} s) at {step}")


@dataclass(frozen=True)
class ProgramError:
    """The exception that stopped the learner's program, located in the learner's file."""

    type: str
    message: str
    line: int | None
    text: str

    def describe(self) -> str:
        where = f"line {self.line}" if self.line else "an unknown line"
        shown = f" (`{self.text}`)" if self.text else ""
        return f"{where}{shown} with {self.type}: {self.message}"


@dataclass(frozen=True)
class CapturedValue:
    """kind: array | scalar | missing | unsupported."""

    kind: str
    value: Any = None
    type: str = ""
    reason: str = ""
    dtype: str = ""
    """The array's dtype as the program had it (bfloat16 arrives cast to float32)."""
    jax_array: bool = False
    """For a call's outputs: the value was a ``jax.Array``."""


@dataclass(frozen=True)
class CallOutputs:
    """What one call of the learner's function returned (or raised)."""

    outputs: tuple[CapturedValue, ...] | None
    is_tuple: bool
    error: ProgramError | None


@dataclass(frozen=True)
class CallResult:
    """One hidden input: the plain call, the arguments after it, and the call under jit."""

    plain: CallOutputs
    inputs_after: tuple[CapturedValue, ...]
    jit: CallOutputs | None
    facts: CallFacts = CallFacts()


@dataclass(frozen=True)
class CapturedCalls:
    function: str
    defined: bool
    results: tuple[CallResult, ...]
    facts: ReportFacts = field(default_factory=lambda: ReportFacts({}, {}))


@dataclass(frozen=True)
class CapturedValues:
    """What the learner's program left defined, and how it ended."""

    completed: bool
    error: ProgramError | None
    values: dict[str, CapturedValue] = field(default_factory=dict)
    calls: CapturedCalls | None = None
    """A function exercise's calls; None when none were asked for or the program stopped."""

    def stopped(self) -> str:
        """Where the program stopped, in words, for feedback."""
        if self.error is None:
            return "your program ran to its end"
        return f"your program stopped at {self.error.describe()}"


def _fail(message: str) -> ValuesError:
    return ValuesError(f"the grading report is unusable: {message}; this is not the "
                       "learner's fault: rerun the submission, and report a repeat")


def _read_array(blob: bytes, name: str) -> np.ndarray:
    """Decode one .npy blob whose header must describe exactly the bytes that follow it.

    ``np.lib.format.read_array`` would allocate the shape the header claims before reading,
    so the header is checked first and the data is taken with ``frombuffer`` (then copied, so
    a check may modify it)."""
    stream = io.BytesIO(blob)
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError(f"unsupported .npy version {version}")
    except Exception as exc:  # noqa: BLE001 - numpy raises many types on bad input
        raise _fail(f"the array for `{name}` is not a valid .npy blob ({exc})") from exc
    if dtype.hasobject:
        raise _fail(f"the array for `{name}` is not a valid .npy blob (it holds objects)")
    count = math.prod(shape)
    data = blob[stream.tell():]
    if len(shape) > 32 or dtype.itemsize == 0 or count > MAX_ELEMENTS \
            or count * dtype.itemsize != len(data):
        raise _fail(f"the array for `{name}` is not a valid .npy blob (its header does not "
                    "match its data)")
    try:
        flat = np.frombuffer(data, dtype=dtype, count=count)
        return flat.reshape(shape, order="F" if fortran else "C").copy()
    except Exception as exc:  # noqa: BLE001 - numpy raises many types on bad input
        raise _fail(f"the array for `{name}` is not a valid .npy blob ({exc})") from exc


def _span(name: str, raw: dict[str, Any], body: bytes) -> tuple[int, int]:
    """(offset, length) of an array entry's blob, inside the body."""
    offset, length = raw.get("offset"), raw.get("length")
    if not (isinstance(offset, int) and isinstance(length, int)) or isinstance(
        offset, bool
    ) or offset < 0 or length <= 0 or offset + length > len(body):
        raise _fail(f"the array `{name}` points outside the report")
    return offset, length


def _entry(name: str, raw: Any, body: bytes) -> CapturedValue:
    if not isinstance(raw, dict) or not isinstance(raw.get("kind"), str):
        raise _fail(f"the entry for `{name}` is not a mapping with a kind")
    kind = raw["kind"]
    type_name = raw.get("type", "")
    if not isinstance(type_name, str):
        raise _fail(f"the type of `{name}` is not text")
    if kind == "missing":
        return CapturedValue("missing")
    if kind == "unsupported":
        return CapturedValue("unsupported", type=type_name, reason=str(raw.get("reason", "")))
    if kind == "scalar":
        value = raw.get("value")
        if not isinstance(value, bool | int | float | str | type(None)):
            raise _fail(f"the scalar `{name}` is not a number, text or null")
        return CapturedValue("scalar", value, type_name, jax_array=raw.get("jax_array") is True)
    if kind == "array":
        offset, length = _span(name, raw, body)
        dtype = raw.get("dtype", "")
        if not isinstance(dtype, str):
            raise _fail(f"the dtype of `{name}` is not text")
        return CapturedValue("array", _read_array(body[offset : offset + length], name),
                             type_name, dtype=dtype, jax_array=raw.get("jax_array") is True)
    raise _fail(f"`{name}` has the unknown kind {kind!r}")


def _error(raw: Any) -> ProgramError | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise _fail("the program error is not a mapping")
    line = raw.get("line")
    if line is not None and (not isinstance(line, int) or isinstance(line, bool)):
        raise _fail("the program error's line is not a number")
    return ProgramError(str(raw.get("type", "Exception")), str(raw.get("message", "")), line,
                        str(raw.get("text", "")))


_CHUNK = 64 * 1024


def _depth(text: bytes, stop_above: int = MAX_DEPTH) -> int:
    """Deepest bracket nesting of a JSON text, outside strings, without parsing it: a byte-level
    state machine run as vectorised passes over 64 KiB chunks (state carried between them),
    each pass linear in the chunk, memory a few times the chunk (no regex: a string that never
    closes made the old one quadratic, 17 s of CPU for 48 KB). A quote is escaped when an odd
    run of backslashes precedes it; unescaped quotes toggle "inside a string". Where this
    disagrees with JSON (a backslash outside a string) the text is not JSON, and ``json`` stops
    there, no deeper than what was counted up to it. An unclosed string is refused; the scan
    stops at the first chunk deeper than ``stop_above``."""
    inside, run_before, depth, deepest = 0, 0, 0, 0
    for begin in range(0, len(text), _CHUNK):
        codes = np.frombuffer(text, dtype=np.uint8, count=min(_CHUNK, len(text) - begin),
                              offset=begin)
        index = np.arange(len(codes), dtype=np.int32)
        backslash = codes == ord("\\")
        last_other = np.where(backslash, -1, index)
        np.maximum.accumulate(last_other, out=last_other)
        run = index - last_other  # backslashes ending at each byte (this chunk's part)
        run[last_other < 0] += run_before
        escaped = np.empty(len(codes), dtype=bool)
        escaped[0] = run_before % 2 == 1
        escaped[1:] = run[:-1] % 2 == 1
        quotes = np.cumsum((codes == ord('"')) & ~escaped, dtype=np.int32)
        outside = (quotes + inside) % 2 == 0  # a closing quote counts as outside
        steps = (((codes == ord("[")) | (codes == ord("{"))) & outside).astype(np.int32)
        steps -= ((codes == ord("]")) | (codes == ord("}"))) & outside
        levels = np.cumsum(steps, out=steps)
        deepest = max(deepest, depth + int(levels.max()))
        if deepest > stop_above:
            return deepest
        depth += int(levels[-1])
        inside = (inside + int(quotes[-1])) % 2
        run_before = int(run[-1])
    if inside:
        raise _fail("its header has a string that never closes")
    return deepest


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise _fail(f"its header holds an integer of {len(digits)} digits")
    return int(digits)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    mapping = dict(pairs)
    if len(mapping) != len(pairs):
        raise _fail("its header repeats a key")
    return mapping


def _header(raw: bytes, budget: _Budget) -> Any:
    """The JSON header, its depth and integers bounded before anything is built. Every step is
    linear in the header: the depth scan above, then ``json`` (a C scanner; integers are capped
    at MAX_INT_DIGITS before ``int`` sees them, floats are parsed by a linear ``float``)."""
    depth = _depth(raw)
    budget.check("the header's nesting")
    if depth > MAX_DEPTH:
        raise _fail(f"its header nests deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(raw.decode("utf-8"), parse_int=_bounded_int,
                          object_pairs_hook=_unique_keys)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise _fail(f"its header is not JSON ({type(exc).__name__})") from exc


def _array_entries(node: Any, where: str) -> list[tuple[str, dict[str, Any]]]:
    """Every array entry anywhere in the header (named values and the calls' inputs and
    outputs). The header's depth is already bounded, so this recursion is too."""
    if isinstance(node, dict):
        found = [(where, node)] if node.get("kind") == "array" else []
        for key, value in node.items():
            found += _array_entries(value, f"{where}.{key}" if where else str(key))
        return found
    if isinstance(node, list):
        return [e for i, item in enumerate(node) for e in _array_entries(item, f"{where}[{i}]")]
    return []


def _check_spans(header: dict[str, Any], body: bytes) -> None:
    """Blobs may not overlap or repeat, wherever they are named (values or calls): what is
    decoded never exceeds the report's size. Checked for every array before any is decoded."""
    spans = [_span(name, raw, body) for name, raw in _array_entries(header, "")]
    end = 0
    for offset, length in sorted(spans):
        if offset < end:
            raise _fail("two arrays point at the same bytes")
        end = offset + length


def _entries(raw: Any, body: bytes, what: str) -> tuple[CapturedValue, ...]:
    if not isinstance(raw, list) or len(raw) > MAX_NAMES:
        raise _fail(f"{what} is not a list of at most {MAX_NAMES} entries")
    return tuple(_entry(f"{what}[{i}]", item, body) for i, item in enumerate(raw))


def _call_outputs(raw: Any, body: bytes, what: str) -> CallOutputs:
    if not isinstance(raw, dict):
        raise _fail(f"{what} is not a mapping")
    outputs = raw.get("outputs")
    return CallOutputs(None if outputs is None else _entries(outputs, body, f"{what} outputs"),
                       raw.get("tuple") is True, _error(raw.get("error")))


def _calls(raw: Any, body: bytes) -> CapturedCalls | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("function"), str):
        raise _fail("its calls are not a mapping with a function name")
    results = raw.get("results")
    if not isinstance(results, list) or len(results) > MAX_NAMES:
        raise _fail(f"its call results are not a list of at most {MAX_NAMES}")
    parsed = []
    for index, item in enumerate(results):
        what = f"call {index}"
        if not isinstance(item, dict):
            raise _fail(f"{what} is not a mapping")
        jit = item.get("jit")
        try:
            facts = call_facts(item.get("facts"))
        except FactsError as exc:
            raise _fail(f"{what}: {exc}") from exc
        parsed.append(CallResult(
            _call_outputs(item, body, what),
            _entries(item.get("inputs_after", []), body, f"{what} inputs"),
            None if jit is None else _call_outputs(jit, body, f"{what} under jit"), facts))
    try:
        found = report_facts(raw)
    except FactsError as exc:
        raise _fail(str(exc)) from exc
    return CapturedCalls(raw["function"], raw.get("defined") is True, tuple(parsed), found)


def read_values(payload: bytes, *, max_bytes: int = MAX_PAYLOAD,
                budget_s: float | None = None) -> CapturedValues:
    """Parse a harness report (see harness.py for the format); raises only ``ValuesError``
    (``BudgetExceeded`` when the parse took more than ``budget_s``, default
    ``PARSE_BUDGET_S``, of this thread's CPU)."""
    budget = _Budget(PARSE_BUDGET_S if budget_s is None else budget_s)
    if not isinstance(payload, bytes | bytearray | memoryview):
        raise _fail(f"expected bytes, got {type(payload).__name__}")
    if not payload:
        raise _fail("it is empty (the program may have been killed before it finished)")
    if len(payload) > max_bytes:
        raise _fail(f"it is {len(payload)} bytes, more than the {max_bytes} allowed")
    payload = bytes(payload)
    if not payload.startswith(MAGIC) or len(payload) < len(MAGIC) + 8:
        raise _fail("it does not start with the harness's PWV1 marker")
    (header_length,) = struct.unpack(">Q", payload[len(MAGIC) : len(MAGIC) + 8])
    start = len(MAGIC) + 8
    if header_length > MAX_HEADER or start + header_length > len(payload):
        raise _fail(f"its header length {header_length} is impossible")
    header = _header(payload[start : start + header_length], budget)
    budget.check("the header")
    if not isinstance(header, dict) or header.get("version") != 1:
        raise _fail("its header is not a version-1 mapping")
    names = header.get("names")
    if not isinstance(names, dict) or len(names) > MAX_NAMES \
            or any(len(name) > MAX_NAME_CHARS for name in names):
        raise _fail(f"its names are not a mapping of at most {MAX_NAMES} short entries")
    completed = header.get("completed")
    if not isinstance(completed, bool):
        raise _fail("`completed` is not true or false")
    body = payload[start + header_length :]
    _check_spans(header, body)
    budget.check("the arrays' spans")
    values = {str(name): _entry(str(name), raw, body) for name, raw in names.items()}
    budget.check("the values")
    calls = _calls(header.get("calls"), body)
    budget.check("the calls")
    return CapturedValues(completed, _error(header.get("error")), values, calls)
