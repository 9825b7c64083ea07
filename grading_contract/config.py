"""Queue settings both sides read from the environment, and the grading key.

The key signs every queue message (``signing``). It is not an LTI key and never leaves the
service and worker hosts: ``PATHWAYS_GRADING_KEY`` (text, at least 32 characters), or the file
named by ``PATHWAYS_GRADING_KEY_FILE``; on one machine, by default, a random key generated into
``$PATHWAYS_VAR_DIR/grading_key`` (mode 0600) that the service and the worker share.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from grading_contract.errors import KeyConfigError
from pathways.env import Env
from pathways.secret_file import create_once

MIN_KEY_BYTES = 32
KEY_FILE = "grading_key"


@dataclass(frozen=True)
class QueueConfig:
    var_dir: Path
    """PATHWAYS_VAR_DIR: where the embedded (SQLite) queue files live."""
    redis_url: str | None
    """REDIS_URL: when set, both queues are RedisHuey on this server."""
    queue_prefix: str
    """PATHWAYS_QUEUE_PREFIX: prepended to queue names (lets tests and tenants share a Redis)."""
    grading_key: bytes = field(repr=False, default=b"")
    """The HMAC key of queue messages (see the module's docstring)."""


def load_grading_key(env: Mapping[str, str], var_dir: Path) -> bytes:
    """The grading key from the environment, its file, or the var dir (generated there once)."""
    if env.get("PATHWAYS_GRADING_KEY"):
        key = env["PATHWAYS_GRADING_KEY"].encode()
        where = "PATHWAYS_GRADING_KEY"
    else:
        path = Path(env.get("PATHWAYS_GRADING_KEY_FILE") or var_dir / KEY_FILE)
        if not env.get("PATHWAYS_GRADING_KEY_FILE"):  # a named file is the operator's
            create_once(path, lambda: secrets.token_hex(32))
        try:
            key = path.read_bytes().strip()
        except OSError as exc:
            raise KeyConfigError(f"cannot read the grading key file {path}: {exc}; set "
                                 "PATHWAYS_GRADING_KEY_FILE or PATHWAYS_GRADING_KEY") from exc
        where = str(path)
    if len(key) < MIN_KEY_BYTES:
        raise KeyConfigError(f"the grading key in {where} is {len(key)} bytes; use at least "
                             f"{MIN_KEY_BYTES} (e.g. `openssl rand -hex 32`), the same on the "
                             "service and every worker host")
    return key


def load_queue_config(environ: Mapping[str, str] | Env | None = None, *,
                      var_dir: Path | None = None) -> QueueConfig:
    """The queue settings of this process (``var_dir``: the caller's, already read; else
    ``PATHWAYS_VAR_DIR``). The service's ``Config.from_env`` and the grader's ``load_config``
    call this once each: one reading of these variables per process."""
    env = environ if isinstance(environ, Env) else Env(environ)
    if var_dir is None:
        var_dir = Path(env.text("PATHWAYS_VAR_DIR", "var")).resolve()
    return QueueConfig(var_dir=var_dir, redis_url=env.optional("REDIS_URL"),
                       queue_prefix=env.text("PATHWAYS_QUEUE_PREFIX", ""),
                       grading_key=load_grading_key(env.environ, var_dir))
