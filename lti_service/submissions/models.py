"""Submission tables (Alembic branch ``grading``): the submission row is the truth.

A ``Submission`` is one learner attempt (``attempt_number`` counts per placement, user and
exercise: a lesson placement's page submits each of the lesson's exercises). Its
grading is leased: ``grading_try`` counts tries (the job's ``attempt``), ``lease_expires_at`` is
extended by worker heartbeats, and the reaper enqueues an expired lease again. ``GradingRun``
has one row per (submission, try) that reported, which makes recording idempotent.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from lti_service.core.models import Base, LmsUser, Placement, UTCDateTime, utcnow

# queued -> running -> graded | not_gradable   (infrastructure failures never reach "graded")
STATUSES = ("queued", "running", "graded", "not_gradable")


class Submission(Base):
    __tablename__ = "submissions"
    # Attempts count per exercise: a lesson placement holds attempts at each of its exercises.
    __table_args__ = (UniqueConstraint("placement_id", "user_id", "exercise_id",
                                       "attempt_number"),
                      # A repeated request (a second click, a client's retry) is the same
                      # attempt: the database refuses a second row, not a read before the write.
                      UniqueConstraint("placement_id", "user_id", "exercise_id", "request_key",
                                       name="uq_submissions_request_key"))

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    placement_id: Mapped[int] = mapped_column(ForeignKey("placements.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("lms_users.id", ondelete="CASCADE"))
    exercise_id: Mapped[str] = mapped_column(String(255))
    attempt_number: Mapped[int] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(Text)
    source_sha256: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(20), default="queued", index=True)
    outcome: Mapped[str | None] = mapped_column(String(30), nullable=True)
    score: Mapped[float | None] = mapped_column(Float, nullable=True)
    max_score: Mapped[float | None] = mapped_column(Float, nullable=True)
    feedback: Mapped[str] = mapped_column(Text, default="")
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    grading_try: Mapped[int] = mapped_column(Integer, default=0)
    infra_failures: Mapped[int] = mapped_column(Integer, default=0)
    lease_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True,
                                                              index=True)
    lease_worker: Mapped[str] = mapped_column(String(255), default="")
    heartbeat_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    enqueued_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    graded_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    variant: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """The learner's exercise variant, sent with every grading try."""
    course_version: Mapped[str] = mapped_column(String(100), default="", server_default="")
    """The course version whose checks graded it (from the result; while queued, the one
    expected to)."""
    checks_hash: Mapped[str] = mapped_column(String(64), default="", server_default="")
    """The exercise's checks hash that graded it (while queued, the one expected to); a
    regrade is due when the course's current hash differs."""

    request_key: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """The page's or API client's key of the request that made it (None: sent without one)."""

    placement: Mapped[Placement] = relationship()
    user: Mapped[LmsUser] = relationship()


class GradingRun(Base):
    """One reported try of a submission; the unique key makes a duplicate delivery a no-op."""

    __tablename__ = "grading_runs"
    __table_args__ = (UniqueConstraint("submission_id", "attempt"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[str] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"))
    attempt: Mapped[int] = mapped_column(Integer)
    outcome: Mapped[str] = mapped_column(String(30))
    worker: Mapped[str] = mapped_column(String(255), default="")
    result: Mapped[dict[str, Any]] = mapped_column(JSON)
    recorded_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Allowance(Base):
    """What an instructor gave one learner in one placement: extra code attempts and a due date
    of their own (an extension), with the reason (shown on the desk)."""

    __tablename__ = "learner_allowances"

    placement_id: Mapped[int] = mapped_column(
        ForeignKey("placements.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(
        ForeignKey("lms_users.id", ondelete="CASCADE"), primary_key=True)
    extra_attempts: Mapped[int] = mapped_column(Integer, default=0)
    due_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    reason: Mapped[str] = mapped_column(String(500), default="")
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class ManualScore(Base):
    """An instructor's score for one learner in one placement, with the reason; the newest one
    is the placement's score from then on (posted through the outbox like any score)."""

    __tablename__ = "manual_scores"

    id: Mapped[int] = mapped_column(primary_key=True)
    placement_id: Mapped[int] = mapped_column(
        ForeignKey("placements.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("lms_users.id", ondelete="CASCADE"))
    score: Mapped[float] = mapped_column(Float)
    max_score: Mapped[float] = mapped_column(Float)
    reason: Mapped[str] = mapped_column(String(500))
    by_user_id: Mapped[int | None] = mapped_column(
        ForeignKey("lms_users.id", ondelete="SET NULL"), nullable=True)
    submission_id: Mapped[str | None] = mapped_column(String(36), nullable=True)
    """The attempt the instructor was looking at (None: a score for the placement)."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class CodeRun(Base):
    """A learner's "Run": their program in the sandbox on the visible examples only, never
    scored, never counted as an attempt. Its result holds no hidden check."""

    __tablename__ = "code_runs"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    placement_id: Mapped[int] = mapped_column(
        ForeignKey("placements.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("lms_users.id", ondelete="CASCADE"))
    exercise_id: Mapped[str] = mapped_column(String(255))
    source: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(20), default="queued")
    """queued | running | done | failed (could not run: ours, never the learner's)."""
    outcome: Mapped[str | None] = mapped_column(String(30), nullable=True)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
