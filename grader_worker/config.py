"""The grader's configuration: the only module of grader_worker that reads the environment.

A TPU host runs the worker with only the queue's URL, so every value has a working default.
"""

from __future__ import annotations

import socket
import sys
from dataclasses import dataclass
from pathlib import Path

from grading_contract.config import QueueConfig, load_queue_config
from pathways.env import Env


@dataclass(frozen=True)
class GraderConfig:
    queue: QueueConfig
    """The queue settings the service reads too (``grading_contract.config``)."""
    platform: str
    """PATHWAYS_GRADER_PLATFORM: cpu or tpu, the JAX_PLATFORMS given to sandboxed runs."""
    python: str
    """PATHWAYS_GRADER_PYTHON: the interpreter runs use (default: this one)."""
    heartbeat_s: float
    """PATHWAYS_GRADER_HEARTBEAT_S: seconds between lease heartbeats during a run."""
    cgroup_root: str | None
    """PATHWAYS_GRADER_CGROUP_ROOT: parent cgroup for per-run cgroups (auto-detected)."""
    run_uid: int
    """PATHWAYS_GRADER_UID: the unprivileged uid runs use when the worker is root."""
    course_root: Path | None = None
    """COURSE_ROOT: the course content (default: the packaged course), as for the service."""
    warm: bool = False
    """PATHWAYS_GRADER_WARM=1: fork runs from a warm sandboxed parent (JAX imported once)."""
    worker_name: str = "worker"
    """PATHWAYS_GRADER_ID (default: the host name): names this worker's run directories and
    cgroups, so a restarted worker removes what its killed predecessor left (sweep.py)."""
    allow_no_cgroup: bool = False
    """PATHWAYS_GRADER_ALLOW_NO_CGROUP=1: start even where no per-run cgroup can be made (runs
    then have rlimits only: no pids limit, so a fork bomb can exhaust the host's tasks)."""
    seed_pool: Path | None = None
    """PATHWAYS_GRADER_SEED_POOL: the seed pool's SQLite file (default
    ``<var dir>/grader/seed-pool.sqlite``; ``off``: every grading runs the reference)."""
    seed_pool_size: int = 1000
    """PATHWAYS_GRADER_SEED_POOL_SIZE: entries kept per (exercise, variant, checks, JAX)."""
    seed_pool_min: int = 100
    """PATHWAYS_GRADER_SEED_POOL_MIN: entries a key needs before gradings draw from it."""
    compile_cache: Path | None = None
    """PATHWAYS_GRADER_COMPILE_CACHE: the folder of JAX compilations that only the course's public
    programs write and every run reads (default ``<var dir>/grader/compile-cache``; ``off``:
    every run compiles everything itself). Warmed by `pathways seed-pool` (compile_cache.py)."""
    packages: tuple[str, ...] = ()
    """PATHWAYS_GRADER_PACKAGES: distributions a run may import besides jax, numpy and optax (with
    what they require); nothing else of the interpreter's site-packages is in the sandbox."""

    # The transport's fields (``grading_contract.queues.QueueSettings``), from ``queue``.
    @property
    def var_dir(self) -> Path:
        return self.queue.var_dir

    @property
    def redis_url(self) -> str | None:
        return self.queue.redis_url

    @property
    def queue_prefix(self) -> str:
        return self.queue.queue_prefix

    @property
    def grading_key(self) -> bytes:
        return self.queue.grading_key


def load_config(environ: dict[str, str] | None = None) -> GraderConfig:
    """The worker's configuration, read once (a wrong value: ``pathways.env.EnvError``)."""
    env = Env(environ)
    course_root = env.optional("COURSE_ROOT")
    queue = load_queue_config(env)
    pool = env.text("PATHWAYS_GRADER_SEED_POOL", "")
    size = env.integer("PATHWAYS_GRADER_SEED_POOL_SIZE", 1000, low=1, high=100_000)
    cache = env.text("PATHWAYS_GRADER_COMPILE_CACHE", "")
    return GraderConfig(
        queue=queue,
        seed_pool=(None if pool == "off" else Path(pool).resolve() if pool
                   else queue.var_dir / "grader" / "seed-pool.sqlite"),
        seed_pool_size=size,
        compile_cache=(None if cache == "off" else Path(cache).resolve() if cache
                       else queue.var_dir / "grader" / "compile-cache"),
        seed_pool_min=env.integer("PATHWAYS_GRADER_SEED_POOL_MIN", min(100, size), low=1,
                                  high=size),
        platform=env.choice("PATHWAYS_GRADER_PLATFORM", "cpu", ("cpu", "tpu")),
        python=env.text("PATHWAYS_GRADER_PYTHON", sys.executable),
        heartbeat_s=env.number("PATHWAYS_GRADER_HEARTBEAT_S", 5.0, above=0, high=3600),
        cgroup_root=env.optional("PATHWAYS_GRADER_CGROUP_ROOT"),
        run_uid=env.integer("PATHWAYS_GRADER_UID", 65534, low=1, high=2**32 - 2),
        course_root=Path(course_root).resolve() if course_root else None,
        warm=env.flag("PATHWAYS_GRADER_WARM", False),
        allow_no_cgroup=env.flag("PATHWAYS_GRADER_ALLOW_NO_CGROUP", False),
        worker_name=env.optional("PATHWAYS_GRADER_ID") or socket.gethostname(),
        packages=tuple(p.strip() for p in env.text("PATHWAYS_GRADER_PACKAGES", "")
                       .split(",") if p.strip()),
    )
