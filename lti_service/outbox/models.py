"""The score outbox: scores on their way to the LMS gradebook."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Float, ForeignKey, Integer, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column, relationship

from lti_service.core.models import Base, LmsUser, Placement, UTCDateTime, utcnow


class ScoreOutbox(Base):
    """One score to post through AGS; written in the grade's transaction, posted until the LMS
    answers (``outbox.service.delivery`` has the rules).

    status: ``pending`` (due at ``next_attempt_at``), ``delivered`` (the LMS answered 2xx),
    ``failed`` (the LMS refused it, or it was still refused after the retry cap; ``last_error``
    holds the LMS's reason), ``no_lineitem`` or ``superseded`` (a later score of the same
    learner and placement replaced it before it was posted). ``resent_at``: the instructor's
    last resend; the AGS timestamp posted is ``resent_at or created_at`` (an LMS refuses a
    repeated timestamp); a retry after an ambiguous outcome sets ``resent_at`` too.
    """

    __tablename__ = "score_outbox"

    id: Mapped[int] = mapped_column(primary_key=True)
    placement_id: Mapped[int] = mapped_column(ForeignKey("placements.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("lms_users.id", ondelete="CASCADE"))
    score: Mapped[float] = mapped_column(Float)
    max_score: Mapped[float] = mapped_column(Float)
    activity_progress: Mapped[str] = mapped_column(String(30))
    grading_progress: Mapped[str] = mapped_column(String(30))
    comment: Mapped[str] = mapped_column(Text, default="")
    source: Mapped[str] = mapped_column(String(100))
    status: Mapped[str] = mapped_column(String(20), default="pending", index=True)
    tries: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_error: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    delivered_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    resent_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    posting_since: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    """Set while a POST may be on the wire (claimed, not yet judged): found set by the next
    claim, the last POST's outcome is unknown (the process died mid-POST)."""
    ambiguous: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """A POST of this score may have reached the LMS (timeout, crash mid-POST): the next one
    carries a new timestamp, and "score already exists" means delivered."""

    @property
    def ags_timestamp(self) -> datetime:
        return self.resent_at or self.created_at

    placement: Mapped[Placement] = relationship()
    user: Mapped[LmsUser] = relationship()
