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
class OutputSharding:
    """How one output is laid out: mesh axes per dimension (None: not split; ``axes`` None:
    not a NamedSharding), the devices that hold a piece, and whether each holds all of it."""

    axes: tuple[tuple[str, ...] | None, ...] | None
    devices: int
    replicated: bool


@dataclass(frozen=True)
class PartitionFacts:
    """The compiled program of one call: how many of each collective XLA inserted, and the
    devices the run had; or why it did not compile."""

    collectives: dict[str, int] = field(default_factory=dict)
    devices: int = 0
    error: str = ""


@dataclass(frozen=True)
class CallFacts:
    seconds: float | None = None
    """The call's wall time, outputs blocked, measured by the harness's own clock."""
    jaxpr: JaxprFacts | None = None
    shardings: tuple[OutputSharding | None, ...] | None = None
    """Each output's layout (partition facts asked for), None where it was no jax.Array."""
    partition: PartitionFacts | None = None


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


COLLECTIVE_NAMES = ("all-reduce", "all-gather", "reduce-scatter", "collective-permute",
                    "all-to-all")
MAX_OUTPUTS = 16


def _axes(raw: Any) -> tuple[tuple[str, ...] | None, ...] | None:
    """The harness's "data;;model+x" (dimensions by ";", a dimension's axes by "+"; empty:
    not split; the whole string empty: no dimension) as (("data",), None, ("model", "x"))."""
    if raw is None:
        return None
    text = _text(raw, "a sharding's axes", 16 * 9 * 41)
    if not text:
        return ()
    dims = text.split(";")
    if len(dims) > 16 or any(len(d.split("+")) > 8 for d in dims):
        raise FactsError("a sharding names more than 16 dimensions or 8 axes in one")
    return tuple(tuple(d.split("+")) if d else None for d in dims)


def _shardings(raw: Any) -> tuple[OutputSharding | None, ...] | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) > MAX_OUTPUTS:
        raise FactsError(f"the shardings are not a list of at most {MAX_OUTPUTS}")
    found: list[OutputSharding | None] = []
    for item in raw:
        if item is None:
            found.append(None)
            continue
        if not isinstance(item, dict) or not isinstance(item.get("replicated"), bool):
            raise FactsError("a sharding is not a mapping with a replicated flag")
        found.append(OutputSharding(_axes(item.get("axes")),
                                    _int(item.get("devices"), "a device count", 0, 4096),
                                    item["replicated"]))
    return tuple(found)


def _partition(raw: Any) -> PartitionFacts | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise FactsError("the partition facts are not a mapping")
    if "error" in raw:
        return PartitionFacts(error=_text(raw["error"], "a compile error"))
    counts = raw.get("collectives")
    if not isinstance(counts, dict) or set(counts) - set(COLLECTIVE_NAMES):
        raise FactsError("the collectives are not a mapping of known collective names")
    return PartitionFacts({n: _int(c, "a collective's count", high=10**6)
                           for n, c in counts.items()},
                          _int(raw.get("devices"), "a device count", 0, 4096))


def call_facts(raw: Any) -> CallFacts:
    if raw is None:
        return CallFacts()
    if not isinstance(raw, dict):
        raise FactsError("a call's facts are not a mapping")
    seconds = raw.get("seconds")
    if seconds is not None and (not isinstance(seconds, float | int) or isinstance(seconds, bool)
                                or not math.isfinite(seconds) or not 0 <= seconds < 1e6):
        raise FactsError("a call's seconds are not a finite duration")
    return CallFacts(None if seconds is None else float(seconds), _jaxpr(raw.get("jaxpr")),
                     _shardings(raw.get("shardings")), _partition(raw.get("partition")))


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
