"""SQLAlchemy 2 models of the service database (table names are a contract: CONTRACTS.md 6).

Submission tables live in ``lti_service/models/submissions.py`` (the grading part) with their own
Alembic branch ``grading``.
"""

from .base import Base, UTCDateTime, utcnow
from .grades import CheckpointAttempt, ScoreOutbox
from .lti import (
    AccessToken,
    Deployment,
    LmsContext,
    LmsUser,
    LtiStorage,
    Placement,
    Platform,
    RegistrationInvite,
    ToolKey,
    UsedNonce,
)
from .portfolio import EvidenceNote, LessonOpen, PortfolioImport

__all__ = [
    "AccessToken",
    "Base",
    "CheckpointAttempt",
    "Deployment",
    "EvidenceNote",
    "LessonOpen",
    "LmsContext",
    "LmsUser",
    "LtiStorage",
    "Placement",
    "PortfolioImport",
    "Platform",
    "RegistrationInvite",
    "ScoreOutbox",
    "ToolKey",
    "UTCDateTime",
    "UsedNonce",
    "utcnow",
]
