"""Drop protocol rows that can no longer matter, so the LTI tables stay small.

``pathways consumer`` runs ``purge`` on its timer (``--housekeeping-every``, a minute): it ran on
every OIDC login before, two DELETEs in front of each learner of a class launching together.

A used nonce only has to outlive the id_tokens that carry it: launches require ``exp`` and
PyJWT refuses expired tokens, so a nonce older than ``NONCE_KEEP`` cannot be replayed.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete
from sqlalchemy.orm import Session

from lti_service.core.models import utcnow
from lti_service.lti.models import LtiStorage, UsedNonce

NONCE_KEEP = timedelta(days=1)


def purge(session: Session) -> int:
    """Delete expired launch data and nonces too old to replay; commit; return rows deleted."""
    now = utcnow()
    gone = session.execute(delete(LtiStorage).where(LtiStorage.expires_at < now)).rowcount
    gone += session.execute(delete(UsedNonce).where(UsedNonce.used_at < now - NONCE_KEEP)).rowcount
    session.commit()
    return int(gone or 0)
