"""Service configuration: the only module that reads the environment (docs/CONFIGURATION.md).

Defaults work on one machine: SQLite (WAL) under ``PATHWAYS_VAR_DIR`` and a secret key generated
into that folder on first run, so restarts keep sessions and signed launch tokens valid.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def _bool(value: str | None, default: bool) -> bool:
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def _secret_key(var_dir: Path) -> str:
    """Read the generated key, creating it (mode 0600) on first run."""
    path = var_dir / "secret_key"
    if path.exists():
        return path.read_text().strip()
    var_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(48)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(key)
    return key


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
    default_max_attempts: int = 3
    default_counting: str = "best"
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
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_env(cls, overrides: dict[str, Any] | None = None) -> Config:
        env = os.environ
        overrides = dict(overrides or {})
        var_dir = Path(overrides.pop("var_dir", env.get("PATHWAYS_VAR_DIR", "var"))).resolve()
        database_url = overrides.pop("database_url", None) or env.get("DATABASE_URL") or (
            f"sqlite:///{var_dir / 'pathways.sqlite3'}"
        )
        secret_key = overrides.pop("secret_key", None) or env.get("SECRET_KEY") or _secret_key(
            var_dir
        )
        course_root = overrides.pop("course_root", None) or env.get("COURSE_ROOT") or None
        values: dict[str, Any] = {
            "tool_base_url": env.get("TOOL_BASE_URL", "http://127.0.0.1:5000").rstrip("/"),
            "proxy_fix": int(env.get("PROXY_FIX_HOPS", "1")),
            "preferred_url_scheme": env.get("PREFERRED_URL_SCHEME", "http"),
            "launch_token_max_age_s": int(env.get("LAUNCH_TOKEN_MAX_AGE_S", str(2 * 3600))),
            "default_max_attempts": int(env.get("CHECKPOINT_MAX_ATTEMPTS", "3")),
            "default_counting": env.get("CHECKPOINT_COUNTING", "best"),
            "tool_title": env.get("TOOL_TITLE", "JAX Pathways"),
            "log_level": env.get("PATHWAYS_LOG_LEVEL", "INFO").upper(),
            # Read here for the web (which writes leases) and the consumer (which reaps them).
            "queued_lease_s": float(env.get("PATHWAYS_QUEUED_LEASE_S", "900")),
            "running_lease_s": float(env.get("PATHWAYS_RUNNING_LEASE_S", "30")),
            "grading_max_tries": int(env.get("PATHWAYS_GRADING_MAX_TRIES", "3")),
            "outbox_retry_base_s": float(env.get("OUTBOX_RETRY_BASE_S", "30")),
            "outbound_allow_private": _bool(env.get("OUTBOUND_ALLOW_PRIVATE"), False),
            "outbound_timeout_s": float(env.get("OUTBOUND_TIMEOUT_S", "5")),
            "outbound_max_bytes": int(env.get("OUTBOUND_MAX_BYTES", str(256 * 1024))),
            "outbound_ca_bundle": env.get("OUTBOUND_CA_BUNDLE") or None,
        }
        known = set(cls.__dataclass_fields__)
        extra = {k: v for k, v in overrides.items() if k not in known}
        values.update({k: v for k, v in overrides.items() if k in known})
        cfg = cls(
            var_dir=var_dir,
            database_url=database_url,
            secret_key=secret_key,
            course_root=Path(course_root) if course_root else None,
            **values,
        )
        cfg.tool_base_url = cfg.tool_base_url.rstrip("/")
        cfg.extra = extra
        if not 1 <= cfg.default_max_attempts <= 100:  # the picker and launches refuse others
            raise ValueError(f"CHECKPOINT_MAX_ATTEMPTS={cfg.default_max_attempts}: use 1 to 100")
        if cfg.default_counting not in {"first", "last", "best"}:
            raise ValueError(
                f"CHECKPOINT_COUNTING={cfg.default_counting!r}: use first, last or best"
            )
        if cfg.queued_lease_s <= 0 or cfg.running_lease_s <= 0:
            raise ValueError("PATHWAYS_QUEUED_LEASE_S and PATHWAYS_RUNNING_LEASE_S: use seconds "
                             "above 0")
        if not 1 <= cfg.grading_max_tries <= 20:
            raise ValueError(f"PATHWAYS_GRADING_MAX_TRIES={cfg.grading_max_tries}: use 1 to 20")
        if not 1 <= cfg.outbox_retry_base_s <= 3600:
            raise ValueError(f"OUTBOX_RETRY_BASE_S={cfg.outbox_retry_base_s}: use 1 to 3600")
        if not 0 < cfg.outbound_timeout_s <= 60:
            raise ValueError(f"OUTBOUND_TIMEOUT_S={cfg.outbound_timeout_s}: use 0 < seconds <= 60")
        if cfg.outbound_max_bytes < 1024:
            raise ValueError(f"OUTBOUND_MAX_BYTES={cfg.outbound_max_bytes}: use at least 1024")
        return cfg
