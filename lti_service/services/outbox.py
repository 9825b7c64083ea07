"""Post due ``score_outbox`` rows to the LMS through AGS, with retries and exponential backoff.

A row leaves ``pending`` only when the LMS accepted it. A failure (LMS down, 5xx, token refused)
keeps it pending and moves ``next_attempt_at`` out by ``BASE_DELAY * 2**(tries-1)`` capped at
``MAX_DELAY``: a down LMS delays a score, never loses it. A stored access token the LMS refuses
(401/403, e.g. after the LMS restarted with a new key) is dropped and the post is made once more
with a fresh token (``CachedServiceConnector``) before the row backs off. ``requeue`` is the
instructor's resend. ``pathways consumer`` calls ``deliver_due`` periodically; each row commits
on its own.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime, timedelta

from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.exception import LtiException, LtiServiceException
from pylti1p3.grade import Grade
from requests import RequestException
from sqlalchemy import select
from sqlalchemy.orm import Session

from ..lti.connector import CachedServiceConnector
from ..lti.toolconf import registration_for
from ..models import LmsContext, Placement, Platform, ScoreOutbox, utcnow

log = logging.getLogger(__name__)
BASE_DELAY = timedelta(seconds=30)
MAX_DELAY = timedelta(hours=1)
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"


def backoff(tries: int) -> timedelta:
    return min(BASE_DELAY * (2 ** max(tries - 1, 0)), MAX_DELAY)


def _error_text(exc: Exception) -> str:
    response = exc.args[0] if exc.args else None
    status = getattr(response, "status_code", None)
    if status is not None:
        return f"LMS answered HTTP {status}: {getattr(response, 'text', '')[:300]}"
    return f"{type(exc).__name__}: {str(exc)[:300]}"


def _post(session: Session, row: ScoreOutbox) -> None:
    placement = session.get(Placement, row.placement_id)
    assert placement is not None
    context = session.get(LmsContext, placement.context_id)
    assert context is not None
    platform = session.get(Platform, context.platform_id)
    assert platform is not None
    connector = CachedServiceConnector(registration_for(session, platform), session, platform.id)
    scopes = list(placement.ags_scopes or []) or [SCORE_SCOPE]
    ags = AssignmentsGradesService(
        connector, {"scope": scopes, "lineitem": placement.lineitem_url}  # type: ignore[typeddict-item]
    )
    grade = (
        Grade()
        .set_score_given(row.score)
        .set_score_maximum(row.max_score)
        .set_activity_progress(row.activity_progress)
        .set_grading_progress(row.grading_progress)
        .set_user_id(row.user.sub)
        .set_timestamp(row.created_at.isoformat().replace("+00:00", "Z"))
    )
    if row.comment:
        grade.set_comment(row.comment)
    ags.put_grade(grade)


def deliver_due(session: Session, *, now: datetime | None = None, limit: int = 50) -> int:
    """Post up to ``limit`` due rows; return how many the LMS accepted."""
    now = now or utcnow()
    rows = list(
        session.scalars(
            select(ScoreOutbox)
            .where(ScoreOutbox.status == "pending", ScoreOutbox.next_attempt_at <= now)
            .order_by(ScoreOutbox.id)
            .limit(limit)
        )
    )
    delivered = 0
    for row in rows:
        placement = session.get(Placement, row.placement_id)
        if placement is None or not placement.lineitem_url:
            row.status = "no_lineitem"
            row.last_error = ("the LMS sent no line item for this link: re-add it with the "
                              "deep-linking picker so the gradebook column exists, then resend")
            session.commit()
            continue
        try:
            _post(session, row)
        except (LtiServiceException, LtiException, RequestException, ValueError) as exc:
            # ValueError: the LMS answered something that is not JSON. Anything else is a bug
            # and propagates; the row stays pending either way, so nothing is lost. Only the
            # token cache changed in this session (a token fetched, or one the LMS refused and
            # the connector dropped): that is kept with the row's new schedule.
            row.tries += 1
            row.last_error = _error_text(exc)
            row.next_attempt_at = now + backoff(row.tries)
            log.warning("score %s not delivered (try %s): %s; next at %s", row.id, row.tries,
                        row.last_error, row.next_attempt_at.isoformat())
            session.commit()
            continue
        row.tries += 1
        row.status = "delivered"
        row.delivered_at = utcnow()
        row.last_error = ""
        session.commit()
        delivered += 1
    return delivered


def requeue(session: Session, rows: Iterable[ScoreOutbox]) -> int:
    """Send these scores again at once (the instructor's "resend")."""
    count = 0
    for row in rows:
        row.status = "pending"
        row.next_attempt_at = utcnow()
        row.delivered_at = None
        count += 1
    session.flush()
    return count
