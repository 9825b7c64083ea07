"""Drop protocol rows that can no longer matter, so the LTI tables stay small.

A used nonce only has to outlive the id_tokens that carry it: launches require ``exp`` and
PyJWT refuses expired tokens, so a nonce older than ``NONCE_KEEP`` cannot be replayed.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete
from sqlalchemy.orm import Session

from ..models import LtiStorage, UsedNonce, utcnow

NONCE_KEEP = timedelta(days=1)


def purge(session: Session) -> None:
    now = utcnow()
    session.execute(delete(LtiStorage).where(LtiStorage.expires_at < now))
    session.execute(delete(UsedNonce).where(UsedNonce.used_at < now - NONCE_KEEP))
