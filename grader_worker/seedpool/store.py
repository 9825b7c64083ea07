"""A worker host's pool of reference reports, one SQLite file the sandbox never sees.

Each entry is a seed, the digest of the hidden calls drawn from it and the reference's raw
report on them (the bytes its sandboxed run sent, parsed again within the run's bounds when
drawn). Entries are grouped by a ``PoolKey``: everything that decides the reference's outputs.
The pool is a cache: any error of its own is logged and grading goes the long way (a
reference run now), never failing a submission.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

MAX_AGE_S = 7 * 24 * 3600.0
"""An entry older than this is dropped: a pool rotates (docs/SEED_POOL.md, "not an answer key")."""
_SCHEMA = """
CREATE TABLE IF NOT EXISTS pool (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  exercise_id TEXT NOT NULL,
  seed INTEGER NOT NULL,
  calls_sha TEXT NOT NULL,
  report BLOB NOT NULL,
  made_at REAL NOT NULL,
  UNIQUE (key, seed)
);
CREATE INDEX IF NOT EXISTS pool_key_made ON pool (key, made_at);
CREATE INDEX IF NOT EXISTS pool_made ON pool (made_at);
"""


@dataclass(frozen=True)
class PoolKey:
    """What decides the reference's outputs for a seed: the course and its checks (the
    hidden inputs and the reference solution), the variant, and the machine's JAX."""

    course_version: str
    exercise_id: str
    variant: Mapping[str, Any]
    checks_hash: str
    platform: str
    jax: str
    devices: int

    @property
    def digest(self) -> str:
        fields = {**asdict(self), "variant": dict(sorted(dict(self.variant).items()))}
        return hashlib.sha256(json.dumps(fields, sort_keys=True, default=str)
                              .encode()).hexdigest()


@dataclass(frozen=True)
class Entry:
    seed: int
    calls_sha: str
    report: bytes


def calls_digest(calls: bytes | None) -> str:
    return hashlib.sha256(calls or b"").hexdigest()


class SeedPool:
    """``draw`` one entry of a key uniformly at random once the key holds ``min_draw``
    entries; ``add`` until it holds ``size``. Safe for the worker's threads and for several
    workers on one host (SQLite's locks; each call opens its own connection)."""

    def __init__(self, path: Path, *, size: int = 1000, min_draw: int = 100,
                 max_age_s: float = MAX_AGE_S) -> None:
        if not 1 <= min_draw <= size:
            raise ValueError(f"a pool draws from min_draw={min_draw} entries of at most "
                             f"size={size}: need 1 <= min_draw <= size")
        self.path = path
        self.size, self.min_draw, self.max_age_s = size, min_draw, max_age_s
        self._made = False
        self._lock = threading.Lock()

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if not self._made:
                self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)  # the worker's only
                os.close(fd)
        db = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
        try:
            if not self._made:
                db.executescript(_SCHEMA)
                self._made = True
            yield db
        finally:
            db.close()

    def _fresh(self) -> float:
        return time.time() - self.max_age_s

    def _count(self, db: sqlite3.Connection, key: PoolKey) -> int:
        return db.execute("SELECT COUNT(*) FROM pool WHERE key = ? AND made_at >= ?",
                          (key.digest, self._fresh())).fetchone()[0]

    def count(self, key: PoolKey) -> int:
        """Fresh entries of ``key``."""
        with self._db() as db:
            return self._count(db, key)

    def draw(self, key: PoolKey) -> Entry | None:
        """One entry, each equally likely, or None while the key holds fewer than
        ``min_draw`` (or the pool cannot be read: then grading runs the reference)."""
        try:
            with self._db() as db:
                n = self._count(db, key)
                if n < self.min_draw:
                    return None
                row = db.execute("SELECT seed, calls_sha, report FROM pool WHERE key = ? AND "
                                 "made_at >= ? ORDER BY id LIMIT 1 OFFSET ?",
                                 (key.digest, self._fresh(), secrets.randbelow(n))).fetchone()
        except (sqlite3.Error, OSError):
            logger.warning("seed pool not readable; the reference runs now", exc_info=True,
                           extra={"pool": str(self.path)})
            return None
        return None if row is None else Entry(int(row[0]), row[1], bytes(row[2]))

    def add(self, key: PoolKey, seed: int, calls: bytes | None, report: bytes) -> bool:
        """Keep the reference's report for ``seed`` while the key holds fewer than ``size``
        entries; expired entries (of every key) go first. True when kept."""
        try:
            with self._db() as db:
                db.execute("BEGIN IMMEDIATE")
                db.execute("DELETE FROM pool WHERE made_at < ?", (self._fresh(),))
                kept = self._count(db, key) < self.size
                if kept:
                    db.execute("INSERT OR IGNORE INTO pool (key, exercise_id, seed, calls_sha, "
                               "report, made_at) VALUES (?, ?, ?, ?, ?, ?)",
                               (key.digest, key.exercise_id, seed, calls_digest(calls),
                                report, time.time()))
                db.execute("COMMIT")
                return kept
        except (sqlite3.Error, OSError):
            logger.warning("seed pool not writable; entry dropped", exc_info=True,
                           extra={"pool": str(self.path)})
            return False

    def discard(self, key: PoolKey, seed: int) -> None:
        """Drop an entry that no longer matches what its seed draws (a stale pool)."""
        try:
            with self._db() as db:
                db.execute("DELETE FROM pool WHERE key = ? AND seed = ?", (key.digest, seed))
        except (sqlite3.Error, OSError):
            logger.warning("seed pool entry not dropped", exc_info=True)

    def sizes(self) -> dict[str, int]:
        """Fresh entries per exercise id (``pathways seed-pool`` prints them)."""
        with self._db() as db:
            rows = db.execute("SELECT exercise_id, COUNT(*) FROM pool WHERE made_at >= ? "
                              "GROUP BY exercise_id ORDER BY exercise_id", (self._fresh(),))
            return {str(e): int(n) for e, n in rows}
