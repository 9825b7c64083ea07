"""Service configuration: the only module of the service that reads the environment, once per
process, through ``pathways.env`` (docs/CONFIGURATION.md).

Defaults work on one machine: SQLite (WAL) under ``PATHWAYS_VAR_DIR`` and a secret key generated
into that folder on first run, so restarts keep sessions and signed launch tokens valid.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grading_contract.config import QueueConfig, load_queue_config
from lti_service.core import placement_policy
from pathways.env import Env
from pathways.secret_file import create_once

if TYPE_CHECKING:
    from course.model import Course

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def _secret_key(var_dir: Path) -> str:
    """Read the generated key, creating it (mode 0600) on first run."""
    path = var_dir / "secret_key"
    create_once(path, lambda: secrets.token_urlsafe(48))
    return path.read_text().strip()


@dataclass
class Config:
    """Settings of one service instance; ``from_env`` builds it, tests pass overrides."""

    var_dir: Path
    database_url: str
    secret_key: str
    tool_base_url: str
    course_root: Path | None
    proxy_fix: int = 1
    preferred_url_scheme: str = "http"
    launch_token_max_age_s: int = 2 * 3600  # a lesson, not a working day
    default_max_attempts: int = placement_policy.DEFAULT_MAX_ATTEMPTS
    default_counting: str = placement_policy.DEFAULT_COUNTING
    tool_title: str = "JAX Pathways"
    log_level: str = "INFO"
    queued_lease_s: float = 900.0
    running_lease_s: float = 30.0
    grading_max_tries: int = 3
    outbox_retry_base_s: float = 30.0
    outbound_allow_private: bool = False
    outbound_timeout_s: float = 5.0
    outbound_max_bytes: int = 256 * 1024
    outbound_ca_bundle: str | None = None
    queue: QueueConfig | None = None
    """The grading queues' settings (``grading_contract.config``), read with the rest; None
    only where an override said so (a process that needs no queue)."""
    course: Course | None = None
    """A course already loaded (tests, benches): served instead of reading ``course_root``."""
    grading: Mapping[str, Any] | None = None
    """``GradingSettings`` fields a test or bench sets beyond what the environment gives
    (``submissions.settings``; an unknown name is refused there)."""

    @classmethod
    def from_env(cls, overrides: dict[str, Any] | None = None,
                 environ: Mapping[str, str] | None = None) -> Config:
        """Read every variable once (``environ``: ``os.environ`` unless given); ``overrides``
        (tests, benches) win. A wrong value raises ``pathways.env.EnvError`` naming the
        variable, the type it needs and docs/CONFIGURATION.md."""
        env = Env(environ)
        overrides = dict(overrides or {})
        var_dir = Path(overrides.pop("var_dir", None) or env.text("PATHWAYS_VAR_DIR", "var")
                       ).resolve()
        database_url = overrides.pop("database_url", None) or env.optional("DATABASE_URL") or (
            f"sqlite:///{var_dir / 'pathways.sqlite3'}"
        )
        secret_key = overrides.pop("secret_key", None) or env.optional("SECRET_KEY") or \
            _secret_key(var_dir)
        course_root = overrides.pop("course_root", None) or env.optional("COURSE_ROOT")
        queue = overrides.pop("queue") if "queue" in overrides else \
            load_queue_config(env, var_dir=var_dir)
        values = _read(env)
        # An override is checked as its variable would be (a bench's 0 attempts is refused too).
        checked = {var: str(overrides[name]) for name, var in _VARIABLES.items()
                   if overrides.get(name) is not None}
        _read(Env(checked))
        unknown = sorted(set(overrides) - set(cls.__dataclass_fields__))
        if unknown:  # a misspelt override must not be ignored silently
            raise ValueError(f"unknown configuration overrides: {unknown}")
        values.update(overrides)
        cfg = cls(
            var_dir=var_dir,
            database_url=database_url,
            secret_key=secret_key,
            course_root=Path(course_root) if course_root else None,
            queue=queue,
            **values,
        )
        cfg.tool_base_url = cfg.tool_base_url.rstrip("/")
        return cfg


def _read(env: Env) -> dict[str, Any]:
    """The typed settings (everything but the var dir, database, secret, course and queue)."""
    return {
        "tool_base_url": env.text("TOOL_BASE_URL", "http://127.0.0.1:5000"),
        "proxy_fix": env.integer("PROXY_FIX_HOPS", 1, low=0, high=10),
        "preferred_url_scheme": env.choice("PREFERRED_URL_SCHEME", "http",
                                           ("http", "https")),
        "launch_token_max_age_s": env.integer("LAUNCH_TOKEN_MAX_AGE_S", 2 * 3600,
                                              low=60, high=7 * 24 * 3600),
        "default_max_attempts": env.integer("CHECKPOINT_MAX_ATTEMPTS",
                                            placement_policy.DEFAULT_MAX_ATTEMPTS, low=1,
                                            high=placement_policy.MAX_ATTEMPTS_LIMIT),
        "default_counting": env.choice("CHECKPOINT_COUNTING",
                                       placement_policy.DEFAULT_COUNTING,
                                       placement_policy.COUNTINGS),
        "tool_title": env.text("TOOL_TITLE", "JAX Pathways")[:200],
        "log_level": env.choice("PATHWAYS_LOG_LEVEL", "INFO", LOG_LEVELS, upper=True),
        # Read here for the web (which writes leases) and the consumer (which reaps them).
        "queued_lease_s": env.number("PATHWAYS_QUEUED_LEASE_S", 900.0, above=0),
        "running_lease_s": env.number("PATHWAYS_RUNNING_LEASE_S", 30.0, above=0),
        "grading_max_tries": env.integer("PATHWAYS_GRADING_MAX_TRIES", 3, low=1, high=20),
        "outbox_retry_base_s": env.number("OUTBOX_RETRY_BASE_S", 30.0, low=1, high=3600),
        "outbound_allow_private": env.flag("OUTBOUND_ALLOW_PRIVATE", False),
        "outbound_timeout_s": env.number("OUTBOUND_TIMEOUT_S", 5.0, above=0, high=60),
        "outbound_max_bytes": env.integer("OUTBOUND_MAX_BYTES", 256 * 1024, low=1024),
        "outbound_ca_bundle": env.optional("OUTBOUND_CA_BUNDLE"),
    }


# The variable each setting is read from (an override of the setting is checked as it would be).
_VARIABLES = {
    "proxy_fix": "PROXY_FIX_HOPS", "preferred_url_scheme": "PREFERRED_URL_SCHEME",
    "launch_token_max_age_s": "LAUNCH_TOKEN_MAX_AGE_S",
    "default_max_attempts": "CHECKPOINT_MAX_ATTEMPTS", "default_counting": "CHECKPOINT_COUNTING",
    "queued_lease_s": "PATHWAYS_QUEUED_LEASE_S", "running_lease_s": "PATHWAYS_RUNNING_LEASE_S",
    "grading_max_tries": "PATHWAYS_GRADING_MAX_TRIES",
    "outbox_retry_base_s": "OUTBOX_RETRY_BASE_S",
    "outbound_allow_private": "OUTBOUND_ALLOW_PRIVATE",
    "outbound_timeout_s": "OUTBOUND_TIMEOUT_S", "outbound_max_bytes": "OUTBOUND_MAX_BYTES",
}
