"""Read the harness's report safely, in the trusted process.

The bytes come from a sandbox that ran learner code, so they are untrusted: no pickle, bounded
sizes, and any malformed input is one clear ``ValuesError`` instead of a crash deep in numpy.
"""

from __future__ import annotations

import io
import json
import struct
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from course.errors import CourseError

MAGIC = b"PWV1\n"
MAX_PAYLOAD = 64 * 1024 * 1024
MAX_HEADER = 1024 * 1024
MAX_NAMES = 256


class ValuesError(CourseError):
    """The harness report is missing, truncated, oversized or malformed."""


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


@dataclass(frozen=True)
class CapturedCalls:
    function: str
    defined: bool
    results: tuple[CallResult, ...]


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
    try:
        array = np.lib.format.read_array(io.BytesIO(blob), allow_pickle=False)
    except Exception as exc:  # noqa: BLE001 - numpy raises many types on bad input
        raise _fail(f"the array for `{name}` is not a valid .npy blob ({exc})") from exc
    if array.dtype.hasobject:
        raise _fail(f"the array for `{name}` holds objects")
    return array


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
        offset, length = raw.get("offset"), raw.get("length")
        if not (isinstance(offset, int) and isinstance(length, int)) or isinstance(
            offset, bool
        ) or offset < 0 or length <= 0 or offset + length > len(body):
            raise _fail(f"the array `{name}` points outside the report")
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
        parsed.append(CallResult(
            _call_outputs(item, body, what),
            _entries(item.get("inputs_after", []), body, f"{what} inputs"),
            None if jit is None else _call_outputs(jit, body, f"{what} under jit")))
    return CapturedCalls(raw["function"], raw.get("defined") is True, tuple(parsed))


def read_values(payload: bytes, *, max_bytes: int = MAX_PAYLOAD) -> CapturedValues:
    """Parse a harness report (see harness.py for the format)."""
    if not isinstance(payload, bytes | bytearray | memoryview):
        raise _fail(f"expected bytes, got {type(payload).__name__}")
    payload = bytes(payload)
    if not payload:
        raise _fail("it is empty (the program may have been killed before it finished)")
    if len(payload) > max_bytes:
        raise _fail(f"it is {len(payload)} bytes, more than the {max_bytes} allowed")
    if not payload.startswith(MAGIC) or len(payload) < len(MAGIC) + 8:
        raise _fail("it does not start with the harness's PWV1 marker")
    (header_length,) = struct.unpack(">Q", payload[len(MAGIC) : len(MAGIC) + 8])
    start = len(MAGIC) + 8
    if header_length > MAX_HEADER or start + header_length > len(payload):
        raise _fail(f"its header length {header_length} is impossible")
    try:
        header = json.loads(payload[start : start + header_length].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _fail(f"its header is not JSON ({exc})") from exc
    if not isinstance(header, dict) or header.get("version") != 1:
        raise _fail("its header is not a version-1 mapping")
    names = header.get("names")
    if not isinstance(names, dict) or len(names) > MAX_NAMES:
        raise _fail("its names are not a mapping of at most 256 entries")
    completed = header.get("completed")
    if not isinstance(completed, bool):
        raise _fail("`completed` is not true or false")
    body = payload[start + header_length :]
    values = {str(name): _entry(str(name), raw, body) for name, raw in names.items()}
    return CapturedValues(completed, _error(header.get("error")), values,
                          _calls(header.get("calls"), body))
