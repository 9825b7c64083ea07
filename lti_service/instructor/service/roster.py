"""The class roster from the LMS (NRPS): ``lti.service.lms`` makes the call."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from lti_service.core.models import LmsContext
from lti_service.lti.service import lms
from lti_service.lti.service.outbound import OutboundPolicy


def members(session: Session, context: LmsContext,
            rules: OutboundPolicy | None = None) -> list[dict[str, Any]]:
    """Members as the LMS lists them (user_id, name, email, roles, status)."""
    return lms.members(session, context, rules)
