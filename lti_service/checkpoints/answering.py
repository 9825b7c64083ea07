"""One checkpoint answer from a page or the JSON API, recorded once per request key."""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError

from lti_service.checkpoints import service
from lti_service.core.authz import PlacementAccess
from lti_service.core.content import has_gradebook_column
from lti_service.core.errors import Conflict
from lti_service.core.extensions import db


def answer_once(access: PlacementAccess, choice: str,
                request_key: str | None) -> service.AnswerResult:
    """Record and commit the answer; a repeat of ``request_key`` (even one racing the first
    to the commit) gets the first answer's result and records nothing."""
    session = db()
    checkpoint = access.item.lesson.checkpoint
    result = service.answer(session, placement=access.placement, user=access.user,
                            checkpoint=checkpoint, choice=choice,
                            graded=has_gradebook_column(access.item.kind,
                                                        access.placement.lineitem_url),
                            request_key=request_key)
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
