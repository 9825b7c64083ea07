"""Heartbeats of the service's long-running parts (``part_heartbeats``): each part writes its
own row every few seconds; ``pathways status`` reads them with their age."""

from __future__ import annotations

import os
import socket

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from lti_service.core.models import PartHeartbeat, utcnow


def beat(sessions: sessionmaker[Session], part: str, state: str = "ok") -> None:
    """Upsert ``part``'s row (host, pid, now, state); raises on a database fault (the caller's
    guard handles it, and a part whose heartbeat cannot be written is shown stale)."""
    values = {"host": socket.gethostname()[:255], "pid": os.getpid(), "beat_at": utcnow(),
              "state": state[:300]}
    with sessions() as session:
        done = session.execute(update(PartHeartbeat).where(PartHeartbeat.part == part)
                               .values(**values).execution_options(synchronize_session=False))
        if not done.rowcount:  # type: ignore[attr-defined]
            session.add(PartHeartbeat(part=part, **values))
        try:
            session.commit()
        except IntegrityError:  # another process of the same part made the row first
            session.rollback()


def beats(session: Session) -> list[PartHeartbeat]:
    return list(session.scalars(select(PartHeartbeat).order_by(PartHeartbeat.part)))
