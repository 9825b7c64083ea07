"""The class roster from the LMS (NRPS), fetched with the cached service token."""

from __future__ import annotations

import logging
from typing import Any

from pylti1p3.exception import LtiException, LtiServiceException
from pylti1p3.names_roles import NamesRolesProvisioningService
from requests import RequestException
from sqlalchemy.orm import Session

from lti_service.core.errors import ServiceError
from lti_service.core.models import LmsContext, Platform
from lti_service.lti.service.connector import CachedServiceConnector
from lti_service.lti.service.toolconf import registration_for

log = logging.getLogger(__name__)


def members(session: Session, context: LmsContext) -> list[dict[str, Any]]:
    """Members as the LMS lists them (user_id, name, email, roles, status)."""
    if not context.memberships_url:
        raise ServiceError("the LMS sent no roster (NRPS) URL for this course", field=None)
    platform = session.get(Platform, context.platform_id)
    assert platform is not None
    connector = CachedServiceConnector(registration_for(session, platform), session, platform.id)
    service = NamesRolesProvisioningService(
        connector, {"context_memberships_url": context.memberships_url,  # type: ignore[typeddict-item]
                    "service_versions": ["2.0"]}
    )
    try:
        return list(service.get_members())
    except (LtiServiceException, LtiException, RequestException) as exc:
        log.warning("roster fetch failed for context %s: %s", context.id, type(exc).__name__)
        raise ServiceError("the LMS roster is not reachable right now: try again later") from exc
