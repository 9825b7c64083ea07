"""The class roster from the LMS (NRPS), fetched with the cached service token."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pylti1p3.exception import LtiException, LtiServiceException
from pylti1p3.names_roles import NamesRolesProvisioningService
from requests import RequestException
from sqlalchemy import select
from sqlalchemy.orm import Session

from lti_service.checkpoints.models import CheckpointAttempt
from lti_service.core.errors import ServiceError
from lti_service.core.models import LmsContext, LmsUser, Placement, Platform, utcnow
from lti_service.instructor.models import RosterCache
from lti_service.lti.service.connector import CachedServiceConnector
from lti_service.lti.service.toolconf import registration_for
from lti_service.outbox.models import ScoreOutbox

log = logging.getLogger(__name__)


FRESH = timedelta(minutes=2)
"""A roster younger than this is shown without asking the LMS again."""


@dataclass(frozen=True)
class Roster:
    members: list[dict[str, Any]]
    fetched_at: datetime | None
    """When the LMS listed it (None: the LMS was never reached; learners known to the tool)."""
    problem: str = ""
    """Why it is not fresh from the LMS (shown with its age); empty when it is."""


def cached_members(session: Session, context: LmsContext, now: datetime | None = None) -> Roster:
    """The roster for the class view, never failing for the LMS: fresh from the LMS (cached
    with its time), or the last one the LMS sent (with its age and why), or the learners the
    tool knows from this course's activity. Commits the cache."""
    now = now or utcnow()
    cached = session.get(RosterCache, context.id)
    if cached is not None and now - cached.fetched_at < FRESH:
        return Roster(list(cached.members), cached.fetched_at)
    try:
        found = members(session, context)
    except ServiceError as exc:
        session.rollback()
        cached = session.get(RosterCache, context.id)
        if cached is not None:
            return Roster(list(cached.members), cached.fetched_at, exc.message)
        return Roster(_known(session, context), None, exc.message)
    if cached is None:
        session.add(RosterCache(context_id=context.id, members=found, fetched_at=now))
    else:
        cached.members, cached.fetched_at = found, now
    session.commit()
    return Roster(found, now)


def _known(session: Session, context: LmsContext) -> list[dict[str, Any]]:
    """Learners with activity in the course (answers, submissions, scores), as members."""
    placements = select(Placement.id).where(Placement.context_id == context.id)
    ids = select(ScoreOutbox.user_id).where(ScoreOutbox.placement_id.in_(placements)).union(
        select(CheckpointAttempt.user_id).where(CheckpointAttempt.placement_id.in_(placements)))
    users = session.scalars(select(LmsUser).where(LmsUser.id.in_(ids)).order_by(LmsUser.id))
    return [{"user_id": u.sub, "name": u.name or u.sub, "email": "", "roles": []}
            for u in users]


def members(session: Session, context: LmsContext) -> list[dict[str, Any]]:
    """Members as the LMS lists them (user_id, name, email, roles, status)."""
    if not context.memberships_url:
        raise ServiceError("the LMS sent no roster (NRPS) URL for this course", field=None)
    platform = session.get(Platform, context.platform_id)
    assert platform is not None
    connector = CachedServiceConnector(registration_for(session, platform), session, platform.id)
    service = NamesRolesProvisioningService(
        connector, {"context_memberships_url": context.memberships_url,  # type: ignore[typeddict-item]
                    "service_versions": ["2.0"]}
    )
    try:
        return list(service.get_members())
    except (LtiServiceException, LtiException, RequestException) as exc:
        log.warning("roster fetch failed for context %s: %s", context.id, type(exc).__name__)
        raise ServiceError("the LMS roster is not reachable right now: try again later") from exc
