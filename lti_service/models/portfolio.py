"""A learner's imported portfolio: the ZIP they exported from My learning elsewhere (another
LMS course or deployment), kept so My learning shows that work here too."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, UTCDateTime, utcnow


class PortfolioImport(Base):
    """One imported ZIP: its manifest (index.json) and its text files, by path in the ZIP."""

    __tablename__ = "portfolio_imports"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("lms_users.id", ondelete="CASCADE"),
                                         index=True)
    source: Mapped[str] = mapped_column(String(500), default="")
    """Where it came from, as its index says (course title and tool URL)."""
    manifest: Mapped[dict[str, Any]] = mapped_column(JSON)
    files: Mapped[dict[str, str]] = mapped_column(JSON, default=dict)
    imported_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
