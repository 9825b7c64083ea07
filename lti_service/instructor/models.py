"""The class roster as the LMS last listed it: the class view shows it (with its age) when the
LMS cannot be reached, so the view never depends on the LMS being up."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey
from sqlalchemy.orm import Mapped, mapped_column

from lti_service.core.models import Base, UTCDateTime, utcnow


class RosterCache(Base):
    __tablename__ = "roster_cache"

    context_id: Mapped[int] = mapped_column(
        ForeignKey("lms_contexts.id", ondelete="CASCADE"), primary_key=True)
    members: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    fetched_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
