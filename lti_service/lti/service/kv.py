"""Rows of the shared ``lti_storage`` table (pylti1p3's launch data, cached platform key sets).

``put`` is one upsert statement (PostgreSQL and SQLite ``ON CONFLICT DO UPDATE``) where the ORM's
``merge`` needed a SELECT first and raced between workers writing the same key.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from lti_service.core.models import utcnow
from lti_service.lti.models import LtiStorage

_UPSERTS = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}


def get(session: Session, key: str) -> Any:
    """The value under ``key``, or None when absent or expired (a column read: no ORM object
    to build and track, on every launch's nonce and key-set reads)."""
    row = session.execute(select(LtiStorage.value, LtiStorage.expires_at)
                          .where(LtiStorage.key == key)).first()
    if row is None or (row.expires_at is not None and row.expires_at < utcnow()):
        return None
    return row.value


def put(session: Session, key: str, value: Any, ttl_s: float | None = None) -> None:
    """Insert or replace ``key`` in the session's transaction."""
    expires: datetime | None = utcnow() + timedelta(seconds=ttl_s) if ttl_s else None
    insert = _UPSERTS.get(session.get_bind().dialect.name)
    if insert is None:  # another database: the ORM's portable (two-statement) way
        session.merge(LtiStorage(key=key, value=value, expires_at=expires))
        session.flush()
        return
    row = {"key": key, "value": value, "expires_at": expires}
    stmt = insert(LtiStorage).values(**row)
    session.execute(stmt.on_conflict_do_update(index_elements=[LtiStorage.key],
                                               set_={"value": stmt.excluded.value,
                                                     "expires_at": stmt.excluded.expires_at}))
    cached = session.identity_map.get(session.identity_key(LtiStorage, key))  # type: ignore[arg-type]
    if cached is not None:  # a row this session loaded as an object must not shadow the new value
        session.expire(cached)
