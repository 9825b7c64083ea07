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
MAX_OUTPUTS = 16
MAX_DEVICES = 8


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
    """name -> how many equations use it (dead code removed: unused calls are not here)."""
    error: str = ""
    typed: dict[str, int] = field(default_factory=dict)
    """``mul(int32,int32)->int32`` -> how many: the dtypes arithmetic ran in."""

    def has(self, *prefixes: str) -> bool:
        """Some primitive's name starts with one of ``prefixes``."""
        return any(name.startswith(prefixes) for name in self.primitives)


@dataclass(frozen=True)
class OutputFacts:
    """One returned value: ready when the function returned (None: not a jax.Array),
    committed to a device, on which devices (``cpu:0``)."""

    ready: bool | None = None
    committed: bool | None = None
    devices: tuple[str, ...] = ()


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
    outputs: tuple[OutputFacts, ...] = ()
    pending: float | None = None
    """Seconds the arguments took to become ready after the call started (None: ready)."""
    counted: tuple[int, int] | None = None
    """(traces of the functions the call jitted, runs of its jax.debug.callbacks)."""
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
    typed = raw.get("typed") or {}
    if not isinstance(typed, dict) or len(typed) > MAX_PRIMITIVES:
        raise FactsError(f"the typed operations are not a mapping of at most {MAX_PRIMITIVES}")
    return JaxprFacts(_int(raw.get("eqns"), "the equation count", high=10**6),
                      {_text(n, "a primitive", 64): _int(c, "a primitive's count", high=10**6)
                       for n, c in names.items()},
                      typed={_text(n, "a typed operation", 120): _int(c, "its count", high=10**6)
                             for n, c in typed.items()})


def _seconds(value: Any, what: str) -> float | None:
    if value is not None and (not isinstance(value, float | int) or isinstance(value, bool)
                              or not math.isfinite(value) or not 0 <= value < 1e6):
        raise FactsError(f"{what} are not a finite duration")
    return None if value is None else float(value)


def _flag(value: Any, what: str) -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise FactsError(f"{what} is not true, false or null")
    return value


def _outputs(raw: Any) -> tuple[OutputFacts, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or len(raw) > MAX_OUTPUTS:
        raise FactsError(f"the output facts are not a list of at most {MAX_OUTPUTS}")
    found = []
    for item in raw:
        if not isinstance(item, dict):
            raise FactsError("an output's facts are not a mapping")
        devices = item.get("devices") or []
        if not isinstance(devices, list) or len(devices) > MAX_DEVICES:
            raise FactsError(f"an output's devices are not a list of at most {MAX_DEVICES}")
        found.append(OutputFacts(_flag(item.get("ready"), "an output's readiness"),
                                 _flag(item.get("committed"), "an output's commitment"),
                                 tuple(_text(d, "a device", 64) for d in devices)))
    return tuple(found)


def _counted(raw: Any) -> tuple[int, int] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise FactsError("the counts are not a mapping")
    return (_int(raw.get("traces"), "the trace count", high=10**6),
            _int(raw.get("callbacks"), "the callback count", high=10**6))


COLLECTIVE_NAMES = ("all-reduce", "all-gather", "reduce-scatter", "collective-permute",
                    "all-to-all")


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
    return CallFacts(_seconds(raw.get("seconds"), "a call's seconds"), _jaxpr(raw.get("jaxpr")),
                     _outputs(raw.get("outputs")), _seconds(raw.get("pending"),
                                                            "a call's pending seconds"),
                     _counted(raw.get("counted")), _shardings(raw.get("shardings")),
                     _partition(raw.get("partition")))


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
