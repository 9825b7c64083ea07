"""Bounded facts the harness reports about what a learner's function does (trusted side).

The harness, inside the sandbox, asks JAX about the object the grader calls: where it was
written (``Target``), how long each call took, what JAX traces from it (``JaxprFacts``) and how
many compilations a jitted function made. Everything here comes from a sandbox that ran
learner code, so each field is type-checked and bounded; a malformed fact is a ``FactsError``
(``values.read_values`` turns it into its one error).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

MAX_TARGETS = 16
MAX_PRIMITIVES = 64
MAX_TEXT = 2000


class FactsError(ValueError):
    """A fact is not of the shape the harness writes."""


@dataclass(frozen=True)
class Target:
    """Where the final binding of a name was written: ``line`` in main.py (None: not a
    function written in main.py), the code object's ``name``."""

    line: int | None
    name: str
    in_program: bool


@dataclass(frozen=True)
class JaxprFacts:
    """What ``jax.make_jaxpr`` saw for one call: every equation counted, nested ones too
    (scan, cond and jit bodies), the primitives' names; or why it could not trace."""

    eqns: int = 0
    primitives: dict[str, int] = field(default_factory=dict)
    """name -> how many equations use it."""
    error: str = ""

    def has(self, *prefixes: str) -> bool:
        """Some primitive's name starts with one of ``prefixes``."""
        return any(name.startswith(prefixes) for name in self.primitives)


@dataclass(frozen=True)
class CallFacts:
    seconds: float | None = None
    """The call's wall time, outputs blocked, measured by the harness's own clock."""
    jaxpr: JaxprFacts | None = None


@dataclass(frozen=True)
class ReportFacts:
    targets: dict[str, Target]
    compiled: dict[str, int]
    """Compilations a jitted function made during the hidden calls (its cache, emptied first)."""


def _int(value: Any, what: str, low: int = 0, high: int = 10**9) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise FactsError(f"{what} is not an integer in [{low}, {high}]")
    return value


def _text(value: Any, what: str, limit: int = MAX_TEXT) -> str:
    if not isinstance(value, str) or len(value) > limit:
        raise FactsError(f"{what} is not text of at most {limit} characters")
    return value


def _jaxpr(raw: Any) -> JaxprFacts | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise FactsError("a jaxpr fact is not a mapping")
    if "error" in raw:
        return JaxprFacts(error=_text(raw["error"], "a trace error"))
    names = raw.get("primitives")
    if not isinstance(names, dict) or len(names) > MAX_PRIMITIVES:
        raise FactsError(f"the primitives are not a mapping of at most {MAX_PRIMITIVES}")
    return JaxprFacts(_int(raw.get("eqns"), "the equation count", high=10**6),
                      {_text(n, "a primitive", 64): _int(c, "a primitive's count", high=10**6)
                       for n, c in names.items()})


def call_facts(raw: Any) -> CallFacts:
    if raw is None:
        return CallFacts()
    if not isinstance(raw, dict):
        raise FactsError("a call's facts are not a mapping")
    seconds = raw.get("seconds")
    if seconds is not None and (not isinstance(seconds, float | int) or isinstance(seconds, bool)
                                or not math.isfinite(seconds) or not 0 <= seconds < 1e6):
        raise FactsError("a call's seconds are not a finite duration")
    return CallFacts(None if seconds is None else float(seconds), _jaxpr(raw.get("jaxpr")))


def report_facts(raw: dict[str, Any]) -> ReportFacts:
    targets, compiled = raw.get("targets") or {}, raw.get("compiled") or {}
    if not isinstance(targets, dict) or not isinstance(compiled, dict) \
            or len(targets) > MAX_TARGETS or len(compiled) > MAX_TARGETS:
        raise FactsError(f"targets and compilations are not mappings of at most {MAX_TARGETS}")
    found: dict[str, Target] = {}
    for name, target in targets.items():
        _text(name, "a target's name", 200)
        if not isinstance(target, dict):
            raise FactsError("a target is not a mapping")
        line = target.get("line")
        found[name] = Target(None if line is None else _int(line, "a target's line", 1),
                             _text(target.get("name", ""), "a target's code name", 200),
                             target.get("in_program") is True)
    return ReportFacts(found, {_text(k, "a name", 200): _int(v, "a compilation count")
                               for k, v in compiled.items()})
