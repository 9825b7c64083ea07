"""Timings and limits of the submission path. The leases and tries come from the service's
``Config`` (one reader of the environment), so the web that writes a lease and the consumer that
reaps it agree; tests build their own."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lti_service.core.config import Config

MAX_SOURCE_BYTES = 64 * 1024
PRACTICE_ATTEMPTS = 20
"""Attempts per exercise on a lesson page (practice: never scored; bounds grading work)."""


@dataclass(frozen=True)
class GradingSettings:
    queued_lease_s: float = 900.0
    """How long a job may wait in the queue before the reaper sends it again (a lost message)."""
    lost_after_s: float = 10.0
    """A queued job missing from the queue this long after it was sent is sent again (the
    reaper compares the queue with the queued submissions), long before its lease expires."""
    running_lease_s: float = 30.0
    """A running job's lease, renewed by each worker heartbeat (worker default: every 5 s)."""
    max_tries: int = 3
    """Grading tries (worker deaths and infrastructure errors) before "not gradable"."""
    max_source_bytes: int = MAX_SOURCE_BYTES
    """Largest main.py accepted."""
    limits: dict[str, Any] | None = None
    """Sandbox limits sent with each job (None: the worker's defaults)."""
    runs_per_window: int = 20
    """"Run"s (ungraded, visible examples only) one learner may start per placement in
    ``run_window_s``."""
    run_window_s: float = 600.0
    runs_in_flight: int = 16
    """"Run"s waiting or running at once for the whole service: Run never floods the graders."""
    run_stale_s: float = 300.0
    """A run with no result after this long was lost: it says "try again", and no longer
    holds its learner's (or the service's) bound."""

    @classmethod
    def from_config(cls, cfg: Config) -> GradingSettings:
        """The settings both service processes use: leases and tries from ``cfg``, plus any
        ``grading`` overrides a test or bench passed to ``Config.from_env``."""
        return cls(queued_lease_s=cfg.queued_lease_s, running_lease_s=cfg.running_lease_s,
                   max_tries=cfg.grading_max_tries).with_overrides(cfg.grading)

    def with_overrides(self, data: Mapping[str, Any] | None) -> GradingSettings:
        known = {f.name for f in fields(self)}
        unknown = sorted(set(data or {}) - known)
        if unknown:
            raise ValueError(f"grading settings: unknown {unknown}; known: {sorted(known)}")
        return replace(self, **(data or {}))
