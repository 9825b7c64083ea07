"""What a checks.py author writes: ``@check`` functions that make expectations on ``Values``."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from course.checks.values import CapturedValues, ProgramError

Status = Literal["passed", "failed", "error"]
_order = itertools.count()


class CheckFailed(AssertionError):
    """An expectation did not hold; the message is the learner's feedback."""


@dataclass(frozen=True)
class CheckSpec:
    """What ``@check`` records on a function."""

    title: str
    points: float
    visible: bool
    order: int


@dataclass(frozen=True)
class CheckOutcome:
    """The result of one check, in the shape of the grading result's ``checks`` entries.

    name: the check's title. status: passed | failed | error (the check itself broke).
    points: points earned. max_points: points possible. feedback: for the learner.
    visible: False for hidden checks (the learner sees only that they exist).
    """

    name: str
    status: Status
    points: float
    max_points: float
    feedback: str
    visible: bool


def check(title: str, *, points: float = 1.0, visible: bool = True) -> Callable:
    """Mark ``fn(values)`` as a check worth ``points``; ``visible=False`` hides it."""
    if not title or not isinstance(title, str):
        raise ValueError("@check needs a non-empty title")
    if points <= 0:
        raise ValueError(f"@check({title!r}) needs positive points, got {points}")

    def mark(fn: Callable[[Values], None]) -> Callable[[Values], None]:
        fn.__pathways_check__ = CheckSpec(title, float(points), visible, next(_order))  # type: ignore[attr-defined]
        return fn

    return mark


def show(value: Any) -> str:
    text = np.array2string(value, threshold=20) if isinstance(value, np.ndarray) else repr(value)
    return text if len(text) <= 200 else text[:200] + "..."


class Values:
    """The learner's captured variables, with expectations that fail with feedback."""

    def __init__(self, captured: CapturedValues, *, expected: CapturedValues | None = None,
                 inputs: Sequence[Any] = (), source: str = "",
                 params: Mapping[str, Any] | None = None) -> None:
        self.captured = captured
        self.expected = expected
        """The reference solution's run on the same hidden inputs (function exercises)."""
        self.inputs = tuple(inputs)
        """The hidden inputs (``Call``), in the order both runs called them."""
        self.source = source
        """The learner's main.py, for static checks."""
        self.params = dict(params or {})
        """The learner's variant."""

    @property
    def error(self) -> ProgramError | None:
        """The exception that stopped the program, if any."""
        return self.captured.error

    def get(self, name: str) -> Any:
        """The value of ``name`` (a numpy array or a scalar); fails if it is not there."""
        entry = self.captured.values.get(name)
        if entry is None or entry.kind == "missing":
            raise CheckFailed(f"`{name}` is not defined: {self.captured.stopped()} "
                              f"without defining `{name}`")
        if entry.kind == "unsupported":
            raise CheckFailed(f"`{name}` is a {entry.type.rsplit('.', 1)[-1]}, which {entry.reason}"
                              "; it should be an array or a number")
        return entry.value

    __getitem__ = get

    def type_name(self, name: str) -> str:
        self.get(name)
        return self.captured.values[name].type

    def array(self, name: str) -> np.ndarray:
        value = self.get(name)
        try:
            array = np.asarray(value)
        except Exception as exc:  # noqa: BLE001
            raise CheckFailed(f"`{name}` is not an array: {show(value)}") from exc
        if not (np.issubdtype(array.dtype, np.number) or array.dtype == np.bool_):
            raise CheckFailed(f"`{name}` should hold numbers, it holds {show(value)}")
        return array

    def expect_shape(self, name: str, shape: Sequence[int]) -> None:
        actual = self.array(name).shape
        if tuple(actual) != tuple(shape):
            raise CheckFailed(f"`{name}` has shape {tuple(actual)}, expected {tuple(shape)}")

    def expect_dtype(self, name: str, dtype: Any) -> None:
        actual = self.array(name).dtype
        if actual != np.dtype(dtype):
            raise CheckFailed(f"`{name}` has dtype {actual}, expected {np.dtype(dtype)}")

    def expect_close(self, name: str, expected: Any, *, rtol: float = 1e-5,
                     atol: float = 1e-6) -> None:
        """Same shape and every element within tolerance (NaN equals NaN)."""
        want = np.asarray(expected)
        self.expect_shape(name, want.shape)
        actual = self.array(name)
        if not np.allclose(actual, want, rtol=rtol, atol=atol, equal_nan=True):
            raise CheckFailed(f"`{name}` is {show(actual)}, expected {show(want)}")

    def expect_equal(self, name: str, expected: Any) -> None:
        """Exactly equal: same shape and values for arrays, == for scalars and text."""
        value = self.get(name)
        if isinstance(value, np.ndarray) or isinstance(expected, np.ndarray | list | tuple):
            want = np.asarray(expected)
            self.expect_shape(name, want.shape)
            if not np.array_equal(self.array(name), want):
                raise CheckFailed(f"`{name}` is {show(value)}, expected {show(want)}")
        elif value != expected:
            raise CheckFailed(f"`{name}` is {show(value)}, expected {show(expected)}")

    def expect_true(self, condition: bool, feedback: str) -> None:
        if not condition:
            raise CheckFailed(feedback)

    def expect_completed(self) -> None:
        """The program ran to its end (its own asserts passed)."""
        if self.captured.error is not None:
            raise CheckFailed(f"{self.captured.stopped()}; fix that line and run it again")
