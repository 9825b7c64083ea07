"""One checkpoint answer from a page or the JSON API, recorded once per request key."""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError

from lti_service.checkpoints import service
from lti_service.checkpoints.models import CheckpointAttempt
from lti_service.core.authz import PlacementAccess, Rows
from lti_service.core.content import has_gradebook_column
from lti_service.core.errors import Conflict
from lti_service.core.extensions import db

EARLIER_ROWS = Rows(CheckpointAttempt.__table__, ("correct", "attempt_number", "choice",
                                                  "choice_text", "choice_label",
                                                  "request_key"), order_by="attempt_number")
"""The learner's earlier attempts an answer needs (``service.answer``'s ``earlier``): the
answer view's guard reads them with the placement, one round trip fewer (issue 23)."""


def answer_once(access: PlacementAccess, choice: str,
                request_key: str | None) -> service.AnswerResult:
    """Record and commit the answer (with the earlier attempts the guard read, when its rule
    asked for ``EARLIER_ROWS``); a repeat of ``request_key`` (even one racing the first
    to the commit) gets the first answer's result and records nothing."""
    session = db()
    checkpoint = access.item.lesson.checkpoint
    result = service.answer(session, placement=access.placement, user=access.user,
                            checkpoint=checkpoint, choice=choice,
                            graded=has_gradebook_column(access.item.kind,
                                                        access.placement.lineitem_url),
                            request_key=request_key, earlier=access.rows)
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        first = service.replay(session, placement=access.placement, user=access.user,
                               checkpoint=checkpoint,
                               request_key=request_key) if request_key else None
        if first is None:
            raise Conflict("another answer was recorded at the same moment: reload the page "
                           "to see it") from None
        return first
    return result
