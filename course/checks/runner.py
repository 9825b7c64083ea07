"""Load an exercise's checks.py and run it against captured values (trusted process only)."""

from __future__ import annotations

import hashlib
import importlib.util
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from course.checks.api import CheckFailed, CheckOutcome, CheckSpec, Values
from course.checks.builtin import builtin_checks
from course.checks.functions import Call, FunctionExercise, make_calls
from course.checks.values import CapturedValues
from course.errors import CourseError

log = logging.getLogger(__name__)


class ChecksError(CourseError):
    """A checks.py cannot be used (it does not import, or lacks NAMES or checks)."""


@dataclass(frozen=True)
class RegisteredCheck:
    spec: CheckSpec
    function: Any


@dataclass(frozen=True)
class CheckSuite:
    """An exercise's checks: the variable NAMES the harness must report, and the checks.

    A function exercise also has ``function`` (its ``EXERCISE``) and ``draw`` (its
    ``calls(params, rng)``); its checks start with the built-in ones.
    """

    path: Path
    names: tuple[str, ...]
    checks: tuple[RegisteredCheck, ...]
    function: FunctionExercise | None = None
    draw: Callable[..., Sequence[Call]] | None = None
    substitute: Callable[..., Mapping[str, str]] | None = None
    """checks.py's ``substitutes(params, rng)``: source of each function in
    ``EXERCISE.substitutes``, drawn at grading time."""

    @property
    def max_points(self) -> float:
        return sum(c.spec.points for c in self.checks)

    def substitutes(self, params: Mapping[str, object], seed: int) -> dict[str, str]:
        """The functions rebound for one grading, drawn from its own stream of ``seed``."""
        if self.substitute is None or self.function is None:
            return {}
        try:
            drawn = dict(self.substitute(dict(params), np.random.default_rng([seed, 1])))
        except Exception as exc:  # noqa: BLE001 - author code may raise anything
            raise ChecksError(f"{self.path}: substitutes(params, rng) failed: "
                              f"{type(exc).__name__}: {exc}") from exc
        if set(drawn) != set(self.function.substitutes) or not all(
                isinstance(v, str) for v in drawn.values()):
            raise ChecksError(f"{self.path}: substitutes(params, rng) must return the source "
                              f"of each of {self.function.substitutes}")
        return drawn

    def calls(self, params: Mapping[str, object], seed: int) -> list[Call]:
        """The hidden inputs for one grading (raises ChecksError if the author's draw fails)."""
        if self.draw is None:
            return []
        try:
            return make_calls(self.draw, params, seed)
        except Exception as exc:  # noqa: BLE001 - author code may raise anything
            raise ChecksError(f"{self.path}: calls(params, rng) failed: "
                              f"{type(exc).__name__}: {exc}") from exc


def _import(path: Path) -> ModuleType:
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(f"pathways_checks_{digest}", path)
    if spec is None or spec.loader is None:
        raise ChecksError(f"{path}: cannot be imported as Python")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - author code may raise anything
        raise ChecksError(f"{path}: importing it raised {type(exc).__name__}: {exc}") from exc
    return module


def load_suite(checks_path: Path | str) -> CheckSuite:
    """Import ``checks_path`` and collect NAMES and the ``@check`` functions in file order."""
    path = Path(checks_path)
    if not path.is_file():
        raise ChecksError(f"{path}: no such checks file")
    module = _import(path)
    function = getattr(module, "EXERCISE", None)
    draw = getattr(module, "calls", None)
    if function is not None and (not isinstance(function, FunctionExercise)
                                 or not callable(draw)):
        raise ChecksError(f"{path}: EXERCISE must be a FunctionExercise, with a "
                          "`def calls(params, rng)` that returns the hidden inputs")
    names = getattr(module, "NAMES", () if function else None)
    if (not isinstance(names, tuple | list) or (not names and function is None)
            or not all(isinstance(n, str) and n.isidentifier() for n in names)):
        raise ChecksError(f"{path}: NAMES must be a non-empty tuple of variable names, "
                          f"such as NAMES = (\"masked\", \"x\")")
    found = [
        RegisteredCheck(fn.__pathways_check__, fn)
        for fn in vars(module).values()
        if callable(fn) and isinstance(getattr(fn, "__pathways_check__", None), CheckSpec)
    ]
    if function is not None:
        found += [RegisteredCheck(spec, fn) for spec, fn in builtin_checks(function)]
    if not found:
        raise ChecksError(f"{path}: defines no @check functions")
    found.sort(key=lambda c: c.spec.order)
    substitute = getattr(module, "substitutes", None)
    if function is not None and function.substitutes and not callable(substitute):
        raise ChecksError(f"{path}: EXERCISE.substitutes needs a `def substitutes(params, rng)`")
    return CheckSuite(path, tuple(names), tuple(found), function,
                      draw if function is not None else None,
                      substitute if function is not None else None)


def run_checks(checks_path: Path | str | CheckSuite, captured: CapturedValues, *,
               expected: CapturedValues | None = None, inputs: Sequence[Call] = (),
               source: str = "", params: Mapping[str, object] | None = None,
               ) -> list[CheckOutcome]:
    """Every check's outcome, in file order. Raises ChecksError if checks.py is unusable.

    Function exercises also need the reference run (``expected``) on the same ``inputs``,
    and the learner's ``source`` for the static checks.
    """
    suite = checks_path if isinstance(checks_path, CheckSuite) else load_suite(checks_path)
    values = Values(captured, expected=expected, inputs=inputs, source=source, params=params)
    outcomes: list[CheckOutcome] = []
    for registered in suite.checks:
        spec = registered.spec
        try:
            registered.function(values)
        except CheckFailed as exc:
            outcomes.append(CheckOutcome(spec.title, "failed", 0.0, spec.points, str(exc),
                                         spec.visible))
        except AssertionError as exc:
            outcomes.append(CheckOutcome(spec.title, "failed", 0.0, spec.points,
                                         str(exc) or "the check's assertion did not hold",
                                         spec.visible))
        except Exception as exc:  # noqa: BLE001 - a broken check must not sink the others
            log.warning("check %r in %s raised %s", spec.title, suite.path, type(exc).__name__)
            outcomes.append(CheckOutcome(spec.title, "error", 0.0, spec.points,
                                         f"the check could not run ({type(exc).__name__}: "
                                         f"{exc}); this is a problem in the check, not in "
                                         "your program", spec.visible))
        else:
            outcomes.append(CheckOutcome(spec.title, "passed", spec.points, spec.points,
                                         "passed", spec.visible))
    return outcomes
