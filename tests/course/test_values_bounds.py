"""read_values is the trusted process's only reader of what a sandbox reports: each hostile
report is refused with ValuesError, and refusing it costs little memory and CPU."""

from __future__ import annotations

import io
import json
import resource
import struct
import tracemalloc
from collections.abc import Callable

import numpy as np
import pytest

from course.checks import ValuesError, read_values
from course.checks.harness import build_report

MB = 1024 * 1024


def raw_report(header: bytes, body: bytes = b"") -> bytes:
    return b"PWV1\n" + struct.pack(">Q", len(header)) + header + body


def report(header: dict, body: bytes = b"") -> bytes:
    return raw_report(json.dumps(header).encode(), body)


def npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def one_blob_many_names() -> bytes:
    """256 names pointing at one 8 MB blob: decoded once per name, 2 GB of trusted memory."""
    blob = npy(np.zeros(MB, dtype=np.float64))
    names = {f"x{i}": {"kind": "array", "offset": 0, "length": len(blob), "type": "t"}
             for i in range(256)}
    return report({"version": 1, "completed": True, "error": None, "names": names}, blob)


def overlapping_blobs() -> bytes:
    """Two valid arrays sharing bytes: the outer one's data is itself a .npy file."""
    inner = npy(np.arange(1000, dtype=np.int64))
    outer = npy(np.frombuffer(inner, dtype=np.uint8))
    skip = len(outer) - len(inner)
    names = {"outer": {"kind": "array", "offset": 0, "length": len(outer)},
             "inner": {"kind": "array", "offset": skip, "length": len(inner)}}
    return report({"version": 1, "completed": True, "error": None, "names": names}, outer)


def lying_npy_header() -> bytes:
    """The .npy header claims 2**40 float64s; 8 bytes follow. numpy would allocate first."""
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }"
    header = header.ljust(117) + "\n"
    blob = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + b"\0" * 8
    return report({"version": 1, "completed": True, "error": None,
                   "names": {"x": {"kind": "array", "offset": 0, "length": len(blob)}}}, blob)


HOSTILE: dict[str, Callable[[], bytes]] = {
    "deeply nested header": lambda: raw_report(b"[" * 500_000 + b"]" * 500_000),
    "nested inside the error": lambda: raw_report(
        b'{"version": 1, "completed": true, "names": {}, "error": {"message": '
        + b"[" * 100_000 + b"]" * 100_000 + b"}}"),
    "5000-digit integer": lambda: raw_report(
        b'{"version": 1, "completed": true, "error": {"line": ' + b"9" * 5000
        + b'}, "names": {}}'),
    "one blob under many names": one_blob_many_names,
    "overlapping blobs": overlapping_blobs,
    "npy header larger than its data": lying_npy_header,
    "repeated key": lambda: raw_report(
        b'{"version": 1, "completed": true, "error": null, "names": {"x": {"kind": "missing"},'
        b' "x": {"kind": "missing"}}}'),
    "header over the limit": lambda: raw_report(b" " * (2 * MB)),
}


@pytest.mark.parametrize("make", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_report_is_refused_within_bounds(make: Callable[[], bytes]) -> None:
    payload = make()
    tracemalloc.start()
    before = resource.getrusage(resource.RUSAGE_SELF)
    try:
        with pytest.raises(ValuesError, match="the grading report is unusable"):
            read_values(payload, max_bytes=16 * MB)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # Refusing costs at most a few copies of the report, never what the report asks for.
    assert peak < 8 * len(payload) + 4 * MB, peak
    assert cpu < 5.0, cpu  # generous: today these cost seconds, gigabytes, or a crash


def test_a_real_report_with_many_arrays_still_reads_back() -> None:
    namespace = {"a": np.arange(12).reshape(3, 4), "b": np.asfortranarray(np.eye(3)),
                 "c": np.float32(2.5), "n": 7, "s": "text", "e": np.zeros((0, 3))}
    payload = build_report(namespace, [*namespace, "gone"], True, None)
    captured = read_values(payload)
    np.testing.assert_array_equal(captured.values["a"].value, namespace["a"])
    np.testing.assert_array_equal(captured.values["b"].value, np.eye(3))
    assert captured.values["e"].value.shape == (0, 3)
    assert captured.values["n"].value == 7 and captured.values["s"].value == "text"
    assert captured.values["gone"].kind == "missing"
    captured.values["a"].value[0, 0] = 99  # a check may modify what it was given
