"""One-time Dynamic Registration invites.

Why: Dynamic Registration creates a trusted platform (its keys sign launches, so grades). It may
start only from a URL the operator made: ``create`` returns a random token (only its SHA-256 is
stored), ``check`` vets it before anything is fetched, and ``consume`` marks it used in the same
transaction that stores the platform, with a conditional UPDATE so that two concurrent
registrations cannot both use one invite. A failed registration leaves the invite open until it
expires; a successful one closes it.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from lti_service.core.errors import Forbidden, ServiceError
from lti_service.core.models import utcnow
from lti_service.lti.models import RegistrationInvite
from lti_service.lti.service.outbound import origin

REFUSED = ("this registration link is not valid (it was used, it expired, or it never existed): "
           "ask the tool's operator for a new one (`pathways platform invite`)")
MAX_VALID_FOR = timedelta(days=7)
TOKEN_MAX_CHARS = 100


class InviteRefused(Forbidden):
    def __init__(self) -> None:
        super().__init__(REFUSED)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create(session: Session, *, valid_for: timedelta, issuer: str | None = None,
           now: datetime | None = None) -> tuple[str, RegistrationInvite]:
    """A new invite; the token is returned once and never stored."""
    if not timedelta(0) < valid_for <= MAX_VALID_FOR:
        raise ValueError(f"an invite is valid for more than 0 and at most {MAX_VALID_FOR}")
    if issuer and origin(issuer) is None:
        raise ServiceError(f"issuer {issuer[:100]!r} is not an http(s) URL", field="issuer")
    token = secrets.token_urlsafe(32)
    invite = RegistrationInvite(token_sha256=_digest(token), issuer=issuer or None,
                                expires_at=(now or utcnow()) + valid_for)
    session.add(invite)
    session.flush()
    return token, invite


def check(session: Session, token: str, *, now: datetime | None = None) -> RegistrationInvite:
    """The open invite this token names; :class:`InviteRefused` (403) otherwise."""
    if not token or len(token) > TOKEN_MAX_CHARS:
        raise InviteRefused()
    invite = session.scalar(select(RegistrationInvite)
                            .where(RegistrationInvite.token_sha256 == _digest(token)))
    if invite is None or invite.used_at is not None or invite.expires_at <= (now or utcnow()):
        raise InviteRefused()
    return invite


def consume(session: Session, invite: RegistrationInvite, platform_id: int) -> None:
    """Close the invite for this platform, or refuse if another request closed it first."""
    now = utcnow()
    result = session.execute(
        update(RegistrationInvite)
        .where(RegistrationInvite.id == invite.id, RegistrationInvite.used_at.is_(None),
               RegistrationInvite.expires_at > now)
        .values(used_at=now, platform_id=platform_id)
        .execution_options(synchronize_session=False))
    if result.rowcount != 1:  # type: ignore[attr-defined]
        raise InviteRefused()
    session.expire(invite)
