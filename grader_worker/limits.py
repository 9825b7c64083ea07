"""Resource limits of one sandboxed run.

A job may ask for limits (an exercise that needs longer), but never more than the host's
ceiling: the job comes from the service, and the worker protects itself.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from course.checks.values import PARSE_BUDGET_S
from grader_worker.errors import JobError

PER_DEVICE = {"memory_mb": 32, "data_mb": 32, "pids": 4, "cpu_s": 2, "wall_s": 3.0}
"""What each logical CPU device past the first adds to a run's limits. Measured (JAX 0.10.2):
8 devices start 12 more threads than 1 and hold 20-80 MB more; the heaviest Phase 04
reference run (data-parallel-grad: 5 hidden calls, each run, traced and compiled for its
collectives) took 13 s of CPU on a loaded 2-core host, so 8 devices get 20 + 14 CPU seconds
and 30 + 21 s of wall clock."""


@dataclass(frozen=True)
class Limits:
    wall_s: float = 30.0
    """Wall-clock seconds before the whole process tree is killed ("timeout")."""
    cpu_s: int = 20
    """RLIMIT_CPU seconds (SIGXCPU then SIGKILL): a busy loop ends even if wall time is long."""
    memory_mb: int = 2048
    """cgroup memory limit; its oom_kill counter reports "memory limit"."""
    data_mb: int = 1536
    """RLIMIT_DATA: a heap grown past it gets MemoryError (a friendly message) before the OOM."""
    pids: int = 256
    """cgroup pids limit (JAX starts many threads; a fork bomb stops here)."""
    fsize_mb: int = 16
    """RLIMIT_FSIZE: largest file the program may write in its private directory."""
    disk_mb: int = 64
    """Size of each writable tmpfs of a run (its directory, /tmp): more gets "No space left"."""
    nofile: int = 256
    """RLIMIT_NOFILE: open files."""
    output_bytes: int = 256 * 1024
    """stdout + stderr bytes before the run is killed ("output limit")."""
    values_bytes: int = 8 * 1024 * 1024
    """Bytes of captured values the harness may send back."""
    report_cpu_s: float = PARSE_BUDGET_S
    """CPU seconds of the trusted thread that reading the run's report may take
    (a job may ask for less, never more); past it the job is "not_gradable", not charged."""

    def for_devices(self, devices: int) -> Limits:
        """These limits sized for a run on ``devices`` logical CPU devices (``PER_DEVICE`` for
        each past the first): applied to the job's limits and to the ceiling alike, so an
        operator's ceiling stays the bound of a one-device run."""
        extra = max(0, devices - 1)
        return replace(self, **{name: type(getattr(self, name))(getattr(self, name) + step * extra)
                                for name, step in PER_DEVICE.items()})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_job(cls, data: dict[str, Any] | None, ceiling: Limits | None = None) -> Limits:
        """Limits a job asked for, each clipped to ``ceiling`` (default: the defaults)."""
        top = ceiling or cls()
        data = data or {}
        unknown = sorted(set(data) - {f.name for f in fields(cls)})
        if unknown:
            raise JobError(f"job limits: unknown field(s) {unknown}; known: "
                           f"{[f.name for f in fields(cls)]}")
        values: dict[str, Any] = {}
        for f in fields(cls):
            cap = getattr(top, f.name)
            raw = data.get(f.name, cap)
            if isinstance(raw, bool) or not isinstance(raw, int | float) or raw <= 0:
                raise JobError(f"job limits: {f.name}={raw!r} must be a positive number")
            values[f.name] = type(cap)(min(raw, cap))
        return cls(**values)
