"""An instructor's manual score (or adjustment) with a reason: stored, and posted to the LMS
gradebook through the outbox in the same transaction, like any score (CONTRACTS.md 6). From
then on it is the placement's score for that learner; a later graded attempt is kept and shown,
but does not replace it (``service._post_counted_score``)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from lti_service.core.models import LmsUser, Placement, utcnow
from lti_service.outbox.service.scores import record_score
from lti_service.submissions.models import ManualScore


class ManualScoreError(ValueError):
    """The score cannot be set; the message says why."""


def latest(session: Session, placement_id: int, user_id: int) -> ManualScore | None:
    """The instructor's newest score for the learner in the placement, if any."""
    return session.scalars(select(ManualScore).where(
        ManualScore.placement_id == placement_id, ManualScore.user_id == user_id)
        .order_by(ManualScore.id.desc())).first()


def history(session: Session, placement_id: int, user_id: int) -> list[ManualScore]:
    return list(session.scalars(select(ManualScore).where(
        ManualScore.placement_id == placement_id, ManualScore.user_id == user_id)
        .order_by(ManualScore.id.desc())))


def set_score(session: Session, *, placement: Placement, user: LmsUser, score: float,
              max_score: float, reason: str, by: LmsUser | None,
              submission_id: str | None = None) -> ManualScore:
    """Store the score and queue it for the gradebook; commits."""
    if max_score <= 0 or not 0 <= score <= max_score:
        raise ManualScoreError(f"the score must be from 0 to {max_score:g}")
    reason = reason.strip()
    if not reason:
        raise ManualScoreError("say why: the learner reads the reason with the score")
    row = ManualScore(placement_id=placement.id, user_id=user.id, score=float(score),
                      max_score=float(max_score), reason=reason[:500],
                      by_user_id=by.id if by else None, submission_id=submission_id,
                      created_at=utcnow())
    session.add(row)
    session.flush()
    record_score(session, placement=placement, user=user, score=row.score,
                 max_score=row.max_score, activity_progress="Completed",
                 grading_progress="FullyGraded",
                 comment=f"Score set by your instructor: {row.reason}"[:1000],
                 source=f"manual:{row.id}")
    session.commit()
    return row
