"""LTI registrations, keys and the people, courses and placements that launches create."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from .base import Base, UTCDateTime, utcnow


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


class RegistrationInvite(Base):
    """A one-time Dynamic Registration URL an operator made (``pathways platform invite``).

    Only the SHA-256 of the token is stored: a database reader cannot use an open invite.
    """

    __tablename__ = "registration_invites"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    issuer: Mapped[str | None] = mapped_column(String(500), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    platform_id: Mapped[int | None] = mapped_column(
        ForeignKey("platforms.id", ondelete="SET NULL"), nullable=True)


class ToolKey(Base):
    """The tool's RSA signing keys; ``current`` signs, the previous one stays in the JWKS."""

    __tablename__ = "tool_keys"

    id: Mapped[int] = mapped_column(primary_key=True)
    kid: Mapped[str] = mapped_column(String(100), unique=True)
    private_pem: Mapped[str] = mapped_column(Text)
    public_pem: Mapped[str] = mapped_column(Text)
    current: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    retired_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)


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
    counting: Mapped[str] = mapped_column(String(10), default="best")

    context: Mapped[LmsContext] = relationship()


class LtiStorage(Base):
    """pylti1p3's launch-data store (nonces, state, launch bodies), shared by all processes."""

    __tablename__ = "lti_storage"

    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    value: Mapped[Any] = mapped_column(JSON)
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)


class UsedNonce(Base):
    """A launch nonce already accepted: a second launch with it is a replay."""

    __tablename__ = "used_nonces"
    __table_args__ = (UniqueConstraint("platform_id", "nonce"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("platforms.id", ondelete="CASCADE"))
    nonce: Mapped[str] = mapped_column(String(255))
    used_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class AccessToken(Base):
    """An OAuth2 token from a platform's token endpoint, reused until shortly before expiry."""

    __tablename__ = "access_tokens"
    __table_args__ = (UniqueConstraint("platform_id", "scope_key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("platforms.id", ondelete="CASCADE"))
    scope_key: Mapped[str] = mapped_column(String(64))
    token: Mapped[str] = mapped_column(Text)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
