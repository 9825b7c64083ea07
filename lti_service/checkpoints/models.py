"""Checkpoint attempts: each answer a learner gave to a checkpoint of a placement."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from lti_service.core.models import Base, LmsUser, Placement, UTCDateTime, utcnow


class CheckpointAttempt(Base):
    __tablename__ = "checkpoint_attempts"
    __table_args__ = (UniqueConstraint("placement_id", "user_id", "attempt_number"),
                      # A repeated answer (second click, client retry) is the same attempt.
                      UniqueConstraint("placement_id", "user_id", "request_key",
                                       name="uq_checkpoint_attempts_request_key"))

    id: Mapped[int] = mapped_column(primary_key=True)
    placement_id: Mapped[int] = mapped_column(ForeignKey("placements.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("lms_users.id", ondelete="CASCADE"))
    checkpoint_id: Mapped[str] = mapped_column(String(255))
    choice: Mapped[str] = mapped_column(String(20))
    """The choice's key in the course source (stable across variants and orders)."""
    choice_text: Mapped[str | None] = mapped_column(Text, nullable=True)
    """The choice's text as this learner saw it (their variant); None: answered before 0511."""
    choice_label: Mapped[str | None] = mapped_column(String(4), nullable=True)
    """The letter the learner saw beside it (A, B, ... in their order of the choices)."""
    correct: Mapped[bool] = mapped_column(Boolean)
    variant: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """The parameters of the variant answered (a parametrised checkpoint), else None."""
    attempt_number: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    request_key: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """The page's or API client's key of the request that made it (None: sent without one)."""

    placement: Mapped[Placement] = relationship()
    user: Mapped[LmsUser] = relationship()
