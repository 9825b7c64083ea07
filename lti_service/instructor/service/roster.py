"""The class roster from the LMS (NRPS): ``lti.service.lms`` makes the call."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from lti_service.checkpoints.models import CheckpointAttempt
from lti_service.core.errors import ServiceError
from lti_service.core.models import LmsContext, LmsUser, Placement, utcnow
from lti_service.instructor.models import RosterCache
from lti_service.lti.service import lms
from lti_service.lti.service.outbound import OutboundPolicy
from lti_service.outbox.models import ScoreOutbox
from lti_service.submissions.models import Submission

FRESH = timedelta(minutes=2)
"""A roster younger than this is shown without asking the LMS again."""


@dataclass(frozen=True)
class Roster:
    members: list[dict[str, Any]]
    fetched_at: datetime | None
    """When the LMS listed it (None: the LMS was never reached; learners known to the tool)."""
    problem: str = ""
    """Why it is not fresh from the LMS (shown with its age); empty when it is."""


def cached_members(session: Session, context: LmsContext, *, rules: OutboundPolicy,
                   now: datetime | None = None) -> Roster:
    """The roster for the class view, never failing for the LMS: fresh from the LMS (cached
    with its time), or the last one the LMS sent (with its age and why), or the learners the
    tool knows from this course's activity. Commits the cache."""
    now = now or utcnow()
    cached = session.get(RosterCache, context.id)
    if cached is not None and now - cached.fetched_at < FRESH:
        return Roster(list(cached.members), cached.fetched_at)
    try:
        found = lms.members(session, context, rules)
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
        select(CheckpointAttempt.user_id).where(CheckpointAttempt.placement_id.in_(placements)),
        select(Submission.user_id).where(Submission.placement_id.in_(placements)))
    users = session.scalars(select(LmsUser).where(LmsUser.id.in_(ids)).order_by(LmsUser.id))
    return [{"user_id": u.sub, "name": u.name or u.sub, "email": "", "roles": []}
            for u in users]

