"""The LTI protocol's own tables: registration invites, the tool's keys, launch data, used nonces
and service access tokens (platforms and placements are core tables)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from lti_service.core.models import Base, UTCDateTime, utcnow


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
