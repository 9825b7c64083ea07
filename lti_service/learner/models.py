"""My learning's own records: a learner's evidence note per lesson, the lessons they opened,
and the portfolios they imported (the ZIP My learning exported on another LMS course or
deployment), so My learning shows that work here too."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from lti_service.core.models import Base, UTCDateTime, utcnow


class PortfolioImport(Base):
    """One imported ZIP: its manifest (index.json) and its text files, by path in the ZIP."""

    __tablename__ = "portfolio_imports"
    # The same export imported twice is one import (None: imported before 0511).
    __table_args__ = (Index("uq_portfolio_imports_digest", "user_id", "digest", unique=True),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("lms_users.id", ondelete="CASCADE"),
                                         index=True)
    source: Mapped[str] = mapped_column(String(500), default="")
    """Where it came from, as its index says (course title and tool URL)."""
    manifest: Mapped[dict[str, Any]] = mapped_column(JSON)
    files: Mapped[dict[str, str]] = mapped_column(JSON, default=dict)
    imported_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    digest: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """SHA-256 of the export's content (its index and files, not the ZIP's bytes)."""
    identity: Mapped[str] = mapped_column(String(500), default="", server_default="")
    """Empty: exported by this learner; else what My learning says about whose it is."""


class EvidenceNote(Base):
    """A learner's evidence note for one lesson, written against its evidence template."""

    __tablename__ = "evidence_notes"
    __table_args__ = (UniqueConstraint("user_id", "lesson_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("lms_users.id", ondelete="CASCADE"))
    lesson_id: Mapped[str] = mapped_column(String(255))
    text: Mapped[str] = mapped_column(Text, default="")
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


class LessonOpen(Base):
    """That a learner opened a lesson's page in an LMS course: first and last time, how often.

    One row per (learner, LMS course, lesson), written by one upsert per lesson page view."""

    __tablename__ = "lesson_opens"
    __table_args__ = (UniqueConstraint("user_id", "context_id", "lesson_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("lms_users.id", ondelete="CASCADE"))
    context_id: Mapped[int] = mapped_column(ForeignKey("lms_contexts.id", ondelete="CASCADE"))
    lesson_id: Mapped[str] = mapped_column(String(255))
    first_opened_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_opened_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    opens: Mapped[int] = mapped_column(Integer, default=1)
