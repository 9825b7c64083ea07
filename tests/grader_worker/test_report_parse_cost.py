"""Issue 21, finding 1: everything the trusted process does with a run's report is linear in
its size and bounded in time.

The old header scan removed strings with a backtracking regex before bounding the nesting: one
``"`` followed by ``\\"`` repeated never closes, so the scan was quadratic (17.6 s of the
worker's CPU for 48 KB, hours for the allowed 1 MiB). Each header below is as large as a report
may carry; the trusted thread's CPU for each is asserted small (CPU time of this thread, so
other load on the host does not count; the bound is ~10x today's figures, and the old code
missed it by four orders of magnitude).
"""

from __future__ import annotations

import io
import json
import struct
import time

import numpy as np
import pytest

from course.checks.values import (
    MAGIC,
    MAX_HEADER,
    BudgetExceeded,
    ValuesError,
    _depth,
    read_values,
)

ROOM = MAX_HEADER - 64
PARSE_CPU_S = 0.5
"""Thread CPU one worst-case report may cost (today: 0.02-0.1 s)."""


def report(header: bytes, body: bytes = b"") -> bytes:
    return MAGIC + struct.pack(">Q", len(header)) + header + body


def _keys(n: int) -> bytes:
    return b"{" + b",".join(b'"k%d":0' % i for i in range(n)) + b"}"


ADVERSARIAL = {
    "an unclosed string of escaped quotes": b'"' + b'\\"' * (ROOM // 2),
    "unclosed strings, one after another": b'["' * (ROOM // 2),
    "only quotes": b'"' * ROOM,
    "only backslashes": b"\\" * ROOM,
    "a string of escaped backslashes": b'{"a":"' + b"\\\\" * (ROOM // 2 - 8) + b'"}',
    "brackets inside a string": b'{"a":"' + b"[{" * (ROOM // 2 - 8) + b'"}',
    "deep nesting": b"[" * ROOM,
    "deep nesting of objects": b'{"a":' * (ROOM // 5),
    "a long float": b'{"a":1.' + b"1" * (ROOM - 10) + b"}",
    "a long integer": b'{"a":' + b"1" * (ROOM - 10) + b"}",
    "a long exponent": b'{"a":1e' + b"9" * (ROOM - 10) + b"}",
    "a flat list": b"[" + b"0," * (ROOM // 2 - 2) + b"0]",
    "many keys": _keys(ROOM // 12),
    "many empty strings": b"[" + b'"",' * (ROOM // 3 - 2) + b'""]',
    "escapes in a valid header": json.dumps({"version": 1, "completed": True, "names": {},
                                             "pad": "\\\"" * (ROOM // 6)}).encode(),
    "unicode escapes": b'{"a":"' + b"\\u00e9" * (ROOM // 6 - 4) + b'"}',
}


def _thread_cpu(payload: bytes) -> tuple[float, str]:
    start = time.thread_time()
    try:
        read_values(payload)
        outcome = "read"
    except ValuesError as exc:
        outcome = type(exc).__name__
    return time.thread_time() - start, outcome


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_an_adversarial_header_costs_the_trusted_thread_little(name: str) -> None:
    header = ADVERSARIAL[name]
    assert len(header) <= MAX_HEADER
    spent, outcome = _thread_cpu(report(header))
    assert spent < PARSE_CPU_S, (name, round(spent, 3))
    # refused as a bad report (not by the budget), or read: never the worker's hours
    assert outcome in ("ValuesError", "read"), (name, outcome)


def test_the_nesting_scan_is_linear_in_what_it_reads() -> None:
    """Deterministic: the scan visits each byte a fixed number of times whatever the bytes, so
    a header 16x longer costs about 16x (not 256x). Compared within one run on one thread;
    the bound leaves 4x room for noise."""
    def cost(n: int) -> float:
        text = b'"' + b'\\"' * n + b'"'  # closed at the end, so the scan runs to the end
        start = time.thread_time()
        for _ in range(5):
            _depth(text)
        return time.thread_time() - start

    cost(1000)  # warm numpy's code paths
    small, large = cost(32 * 1024), cost(16 * 32 * 1024)
    assert large < 64 * max(small, 1e-4), (small, large)


def test_the_scan_agrees_with_json_on_strings() -> None:
    """Brackets inside strings (escaped quotes, escaped backslashes) do not count; outside do."""
    assert _depth(b'{"a": "[[[[\\"[[", "b": [[1]]}') == 3
    assert _depth(b'["\\\\", [["\\\\\\"]"]]]') == 3
    assert _depth(b'"\\\\"') == 0
    assert _depth(b"") == 0
    with pytest.raises(ValuesError, match="never closes"):
        _depth(b'["abc\\"]')


def _npy(value: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, value, allow_pickle=False)
    return buffer.getvalue()


def test_the_most_arrays_a_report_may_carry_are_read_within_the_budget() -> None:
    """As many tiny arrays as a 1 MiB header can name (calls x outputs): each is decoded once,
    and the whole parse stays well within its budget."""
    blob, body, results = _npy(np.zeros(1, np.float32)), bytearray(), []
    entry_bytes = 80
    for _ in range(256):
        outputs = []
        for _ in range(min(16, ROOM // (256 * entry_bytes))):
            outputs.append({"kind": "array", "offset": len(body), "length": len(blob),
                            "type": "ndarray", "dtype": "float32"})
            body += blob
        results.append({"outputs": outputs, "tuple": True, "error": None, "inputs_after": []})
    header = json.dumps({"version": 1, "completed": True, "error": None, "names": {},
                         "calls": {"function": "f", "defined": True, "results": results}}).encode()
    assert len(header) <= MAX_HEADER
    spent, outcome = _thread_cpu(report(header, bytes(body)))
    assert outcome == "read" and spent < PARSE_CPU_S, (outcome, round(spent, 3))


def test_a_parse_past_its_budget_stops_with_budget_exceeded() -> None:
    """The budget is the backstop: a parse that has spent it stops at its next step."""
    header = json.dumps({"version": 1, "completed": True, "names": {}}).encode()
    with pytest.raises(BudgetExceeded, match="budget"):
        read_values(report(header), budget_s=-1.0)
    assert read_values(report(header)).completed
