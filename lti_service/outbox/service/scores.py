"""Scores for the LMS gradebook: ``record_score`` writes an outbox row in the caller's
transaction (CONTRACTS.md 6); ``lti_service.outbox.service.delivery.deliver_due`` posts it."""

from __future__ import annotations

from sqlalchemy.orm import Session

from lti_service.core.errors import ServiceError
from lti_service.core.models import LmsUser, Placement, utcnow
from lti_service.outbox.models import ScoreOutbox

ACTIVITY = ("Initialized", "Started", "InProgress", "Submitted", "Completed")
GRADING = ("FullyGraded", "Pending", "PendingManual", "Failed", "NotReady")


def record_score(
    session: Session,
    *,
    placement: Placement,
    user: LmsUser,
    score: float,
    max_score: float,
    activity_progress: str = "Completed",
    grading_progress: str = "FullyGraded",
    comment: str = "",
    source: str,
) -> ScoreOutbox:
    """Queue a score; nothing is sent here, so the caller's commit decides whether it exists."""
    if activity_progress not in ACTIVITY:
        raise ServiceError(f"activity_progress={activity_progress!r}: use one of {ACTIVITY}")
    if grading_progress not in GRADING:
        raise ServiceError(f"grading_progress={grading_progress!r}: use one of {GRADING}")
    if max_score <= 0 or not 0 <= score <= max_score:
        raise ServiceError(f"score {score} / {max_score}: need 0 <= score <= max_score > 0")
    row = ScoreOutbox(
        placement_id=placement.id,
        user_id=user.id,
        score=float(score),
        max_score=float(max_score),
        activity_progress=activity_progress,
        grading_progress=grading_progress,
        comment=comment,
        source=source,
        status="pending",
        tries=0,
        next_attempt_at=utcnow(),
    )
    # A Core INSERT in the caller's transaction, not the ORM's unit of work (a flush was a
    # sixth of a checkpoint answer's CPU, issue 23); the row object stays out of the session,
    # with its id: a later read loads the stored row.
    values = {c.key: getattr(row, c.key) for c in _TABLE.columns if getattr(row, c.key) is not None}
    row.id = session.connection().execute(_INSERT, values).inserted_primary_key[0]
    return row


_TABLE = ScoreOutbox.__table__
_INSERT = _TABLE.insert()
