"""Registration invites on SQLite and PostgreSQL: hashed, single use, expiring."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from lti_service.core.db import make_engine, make_session_factory, upgrade
from lti_service.core.errors import ServiceError
from lti_service.core.models import Platform, utcnow
from lti_service.lti.models import RegistrationInvite
from lti_service.lti.service import invites


def _platform(session: Session, client_id: str) -> Platform:
    platform = Platform(issuer="https://lms.example", client_id=client_id,
                        auth_login_url="https://lms.example/a",
                        auth_token_url="https://lms.example/t",
                        key_set_url="https://lms.example/k")
    session.add(platform)
    session.flush()
    return platform


def test_invite_is_hashed_single_use_and_expires(any_database_url: str) -> None:
    upgrade(any_database_url)
    engine = make_engine(any_database_url)
    sessions = make_session_factory(engine)
    try:
        with sessions() as session:
            token, invite = invites.create(session, valid_for=timedelta(hours=1))
            old, _ = invites.create(session, valid_for=timedelta(hours=1),
                                    now=utcnow() - timedelta(hours=2))
            session.commit()
            assert token not in invite.token_sha256 and len(invite.token_sha256) == 64
        # Two registrations hold the same open invite; only the first to consume it wins.
        with sessions() as first, sessions() as second:
            a, b = invites.check(first, token), invites.check(second, token)
            invites.consume(first, a, _platform(first, "one").id)
            first.commit()
            with pytest.raises(invites.InviteRefused):
                invites.consume(second, b, _platform(second, "two").id)
            second.rollback()
        with sessions() as session:
            used = session.scalars(select(RegistrationInvite)
                                   .where(RegistrationInvite.used_at.is_not(None))).one()
            assert used.platform_id == session.scalars(
                select(Platform.id).where(Platform.client_id == "one")).one()
            assert session.scalars(select(Platform.client_id)).all() == ["one"]
            for refused in (token, old, "", "nope", "x" * 101):
                with pytest.raises(invites.InviteRefused):
                    invites.check(session, refused)
            with pytest.raises(ValueError):
                invites.create(session, valid_for=timedelta(days=8))
            with pytest.raises(ServiceError):
                invites.create(session, valid_for=timedelta(hours=1), issuer="lms.example")
    finally:
        engine.dispose()
