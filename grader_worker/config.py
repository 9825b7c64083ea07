"""The grader's configuration: the only module of grader_worker that reads the environment.

A TPU host runs the worker with only the queue's URL, so every value has a working default.
"""

from __future__ import annotations

import os
import socket
import sys
from dataclasses import dataclass, field
from pathlib import Path

from grading_contract.config import load_grading_key


@dataclass(frozen=True)
class GraderConfig:
    var_dir: Path
    """PATHWAYS_VAR_DIR: where the embedded (SQLite) queue files live."""
    redis_url: str | None
    """REDIS_URL: when set, both queues are RedisHuey on this server."""
    queue_prefix: str
    """PATHWAYS_QUEUE_PREFIX: prepended to queue names (lets tests and tenants share a Redis)."""
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
    grading_key: bytes = field(default=b"", repr=False)
    """The queue messages' HMAC key (grading_contract.config): shared with the service."""
    allow_no_cgroup: bool = False
    """PATHWAYS_GRADER_ALLOW_NO_CGROUP=1: start even where no per-run cgroup can be made (runs
    then have rlimits only: no pids limit, so a fork bomb can exhaust the host's tasks)."""
    packages: tuple[str, ...] = ()
    """PATHWAYS_GRADER_PACKAGES: distributions a run may import besides jax, numpy and optax (with
    what they require); nothing else of the interpreter's site-packages is in the sandbox."""


def load_config(environ: dict[str, str] | None = None) -> GraderConfig:
    env = os.environ if environ is None else environ
    var_dir = Path(env.get("PATHWAYS_VAR_DIR", "var")).resolve()
    return GraderConfig(
        var_dir=var_dir,
        redis_url=env.get("REDIS_URL") or None,
        queue_prefix=env.get("PATHWAYS_QUEUE_PREFIX", ""),
        platform=env.get("PATHWAYS_GRADER_PLATFORM", "cpu"),
        python=env.get("PATHWAYS_GRADER_PYTHON", sys.executable),
        heartbeat_s=float(env.get("PATHWAYS_GRADER_HEARTBEAT_S", "5")),
        cgroup_root=env.get("PATHWAYS_GRADER_CGROUP_ROOT") or None,
        run_uid=int(env.get("PATHWAYS_GRADER_UID", "65534")),
        course_root=Path(env["COURSE_ROOT"]).resolve() if env.get("COURSE_ROOT") else None,
        warm=env.get("PATHWAYS_GRADER_WARM", "").lower() in ("1", "true", "yes", "on"),
        allow_no_cgroup=env.get("PATHWAYS_GRADER_ALLOW_NO_CGROUP", "").lower()
        in ("1", "true", "yes", "on"),
        worker_name=env.get("PATHWAYS_GRADER_ID") or socket.gethostname(),
        grading_key=load_grading_key(env, var_dir),
        packages=tuple(p.strip() for p in env.get("PATHWAYS_GRADER_PACKAGES", "")
                       .split(",") if p.strip()),
    )
