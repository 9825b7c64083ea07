"""Declarative base, the column types every table shares, and the tables every feature keys
its rows on: platforms and deployments, and the LMS users, courses and placements launches create.

Times are stored as naive UTC and returned as aware UTC, so SQLite and PostgreSQL compare alike.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, MetaData, String, UniqueConstraint
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from sqlalchemy.types import TypeDecorator

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp that is always timezone-aware UTC in Python."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column: pass an aware datetime")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class Platform(Base):
    """One LMS registration (issuer + client id); an issuer may have many client ids."""

    __tablename__ = "platforms"
    __table_args__ = (UniqueConstraint("issuer", "client_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    issuer: Mapped[str] = mapped_column(String(500))
    client_id: Mapped[str] = mapped_column(String(255))
    name: Mapped[str] = mapped_column(String(255), default="")
    auth_login_url: Mapped[str] = mapped_column(String(1000))
    auth_token_url: Mapped[str] = mapped_column(String(1000))
    key_set_url: Mapped[str] = mapped_column(String(1000))
    auth_audience: Mapped[str | None] = mapped_column(String(1000), nullable=True)
    service_origins: Mapped[list[str]] = mapped_column(JSON, default=list)
    """Origins (scheme://host[:port]) the operator allows for AGS/NRPS URLs besides the
    registration's own URLs' origins (``lti.service.platforms.service_origins``)."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    deployments: Mapped[list[Deployment]] = relationship(
        back_populates="platform", cascade="all, delete-orphan"
    )


class Deployment(Base):
    __tablename__ = "deployments"
    __table_args__ = (UniqueConstraint("platform_id", "deployment_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("platforms.id", ondelete="CASCADE"))
    deployment_id: Mapped[str] = mapped_column(String(255))

    platform: Mapped[Platform] = relationship(back_populates="deployments")


class LmsUser(Base):
    __tablename__ = "lms_users"
    __table_args__ = (UniqueConstraint("platform_id", "sub"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("platforms.id", ondelete="CASCADE"))
    sub: Mapped[str] = mapped_column(String(255))
    name: Mapped[str] = mapped_column(String(255), default="")
    email: Mapped[str] = mapped_column(String(255), default="")


class LmsContext(Base):
    """An LMS course (the LTI context) with the NRPS URL its launches carried."""

    __tablename__ = "lms_contexts"
    __table_args__ = (UniqueConstraint("platform_id", "context_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("platforms.id", ondelete="CASCADE"))
    deployment_id: Mapped[str] = mapped_column(String(255), default="")
    context_id: Mapped[str] = mapped_column(String(255))
    title: Mapped[str] = mapped_column(String(500), default="")
    memberships_url: Mapped[str | None] = mapped_column(String(1000), nullable=True)

    platform: Mapped[Platform] = relationship()


class Placement(Base):
    """A resource link in an LMS course pointing at one content id, with its attempt policy."""

    __tablename__ = "placements"
    __table_args__ = (UniqueConstraint("context_id", "resource_link_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    context_id: Mapped[int] = mapped_column(ForeignKey("lms_contexts.id", ondelete="CASCADE"))
    resource_link_id: Mapped[str] = mapped_column(String(255))
    content_id: Mapped[str] = mapped_column(String(255))
    title: Mapped[str] = mapped_column(String(500), default="")
    lineitem_url: Mapped[str | None] = mapped_column(String(1000), nullable=True)
    lineitems_url: Mapped[str | None] = mapped_column(String(1000), nullable=True)
    ags_scopes: Mapped[list[str]] = mapped_column(JSON, default=list)
    max_attempts: Mapped[int] = mapped_column(Integer, default=3)
    """Checkpoint attempts allowed."""
    counting: Mapped[str] = mapped_column(String(10), default="best")
    code_attempts: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Graded code submissions allowed per learner (None: unlimited), its own policy,
    separate from checkpoint attempts; an instructor can give a learner extra ones."""
    due_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    """Submissions close at this time (None: never); a learner's extension may move it."""

    context: Mapped[LmsContext] = relationship()


class PartHeartbeat(Base):
    """The last sign of life of one long-running part (``consumer``, ``outbox``, ...), written
    by the part itself every few seconds; ``pathways status`` shows its age."""

    __tablename__ = "part_heartbeats"

    part: Mapped[str] = mapped_column(String(100), primary_key=True)
    host: Mapped[str] = mapped_column(String(255), default="")
    pid: Mapped[int] = mapped_column(Integer, default=0)
    beat_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    state: Mapped[str] = mapped_column(String(300), default="")
    """"ok", or what it is waiting for (e.g. "database unreachable, retrying in 4s")."""
