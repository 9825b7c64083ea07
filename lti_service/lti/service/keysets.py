"""Platforms' key sets (JWKS), cached in the shared ``lti_storage`` table.

Why: fetching the key set on every launch put an HTTP round trip to the LMS in front of every
learner, and a lecture hall launching together waited on it. A launch now reads the cached set
(one primary-key lookup, shared by every worker and host); a ``kid`` the cached set does not
have (the platform rotated its key) refreshes it, at most once per ``MIN_REFRESH_S`` per URL, so
forged kids cannot turn launches into a flood of fetches to the LMS. Fetching stays the
caller's (the guarded ``outbound`` fetch); cache writes commit on their own connection,
so a rejected launch's rollback keeps them and they never join the launch's locks.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from lti_service.lti.service import kv

TTL_S = 3600
MIN_REFRESH_S = 10.0
KEY_PREFIX = "keyset-"

Fetch = Callable[[str], Any]


def cache_key(url: str) -> str:
    return KEY_PREFIX + hashlib.sha256(url.encode()).hexdigest()[:40]


def has_kid(key_set: Any, kid: str) -> bool:
    keys = key_set.get("keys") if isinstance(key_set, dict) else None
    return isinstance(keys, list) and any(isinstance(k, dict) and k.get("kid") == kid
                                          for k in keys)


@dataclass
class KeySets:
    """The key sets one request sees: ``session`` reads the cache, ``fetch`` gets a fresh set."""

    session: Session
    fetch: Fetch
    ttl_s: float = TTL_S
    min_refresh_s: float = MIN_REFRESH_S

    def get(self, url: str) -> Any:
        """The cached key set of ``url``, fetched and cached when there is none."""
        entry = kv.get(self.session, cache_key(url))
        if isinstance(entry, dict) and "keys" in entry:
            return entry["keys"]
        return self._fetch_and_store(url)

    def refresh(self, url: str) -> Any | None:
        """A fresh key set (the cached one lacked a kid); None when refreshed moments ago."""
        entry = kv.get(self.session, cache_key(url))
        fetched_at = entry.get("fetched_at", 0.0) if isinstance(entry, dict) else 0.0
        if time.time() - float(fetched_at) < self.min_refresh_s:
            return None
        return self._fetch_and_store(url)

    def _fetch_and_store(self, url: str) -> Any:
        key_set = self.fetch(url)
        with Session(bind=self.session.get_bind()) as own:
            kv.put(own, cache_key(url), {"fetched_at": time.time(), "keys": key_set}, self.ttl_s)
            own.commit()
        return key_set
