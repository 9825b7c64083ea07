"""Every call the tool makes to an LMS's services (AGS scores, NRPS rosters), in one place.

``connector_for`` is the one way to get a pylti1p3 connector: its OAuth2 tokens are shared
through the database (``connector.CachedServiceConnector``) and every request it makes (token
endpoint, line item, scores, roster pages) goes through the guarded fetch, only to the
platform's registered origins (``platforms.service_origins``). The outbox's delivery and the
instructor's roster are given these calls; neither builds a connector of its own.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from pylti1p3.exception import LtiException, LtiServiceException
from pylti1p3.names_roles import NamesRolesProvisioningService
from requests import RequestException
from sqlalchemy.orm import Session

from lti_service.core.errors import ServiceError
from lti_service.core.models import LmsContext, Placement, Platform
from lti_service.lti.service import outbound
from lti_service.lti.service.connector import (
    CachedServiceConnector,
    ServiceAnswer,
    guarded_session,
)
from lti_service.lti.service.platforms import service_origins
from lti_service.lti.service.toolconf import registration_for

log = logging.getLogger(__name__)
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
ROSTER_UNREACHABLE = "the LMS roster is not reachable right now: try again later"
SERVICE_TIMEOUT_S = 15.0
SERVICE_MAX_BYTES = 4 * 1024 * 1024
"""An LMS's own services answer more, and slower, than a key set: a roster page of a large
course is megabytes. Its calls get at least these limits (the operator's, if larger)."""


def connector_for(session: Session, platform: Platform,
                  rules: outbound.OutboundPolicy) -> CachedServiceConnector:
    """The platform's service connector: shared tokens, guarded requests, its origins only.
    ``rules``: the operator's outbound policy, handed in by the process's composition root
    (``outbound.policy(config)``), never read here."""
    rules = replace(rules, timeout_s=max(rules.timeout_s, SERVICE_TIMEOUT_S),
                    max_bytes=max(rules.max_bytes, SERVICE_MAX_BYTES))
    http = guarded_session(rules, service_origins(platform))
    return CachedServiceConnector(registration_for(session, platform), session, platform.id, http)


def scores_url(lineitem: str) -> str:
    """``<lineitem>/scores``, keeping the line item URL's query (AGS 3.4)."""
    path, sep, query = lineitem.partition("?")
    return path.rstrip("/") + "/scores" + sep + query


def post_score(session: Session, placement: Placement, score: str,
               rules: outbound.OutboundPolicy) -> ServiceAnswer:
    """POST one AGS score (its JSON) to the placement's line item; the LMS's answer, unparsed.

    Raises ``requests.RequestException`` when no answer came (refused by the guard included),
    ``LtiServiceException``/``LtiException`` when the token request failed.
    """
    context = session.get(LmsContext, placement.context_id)
    assert context is not None and placement.lineitem_url is not None
    platform = session.get(Platform, context.platform_id)
    assert platform is not None
    connector = connector_for(session, platform, rules)
    return connector.post([SCORE_SCOPE], scores_url(placement.lineitem_url), score,
                          SCORE_TYPE)


def members(session: Session, context: LmsContext,
            rules: outbound.OutboundPolicy) -> list[dict[str, Any]]:
    """The course's members as the LMS lists them (user_id, name, email, roles, status)."""
    if not context.memberships_url:
        raise ServiceError("the LMS sent no roster (NRPS) URL for this course", field=None)
    platform = session.get(Platform, context.platform_id)
    assert platform is not None
    service = NamesRolesProvisioningService(
        connector_for(session, platform, rules),
        {"context_memberships_url": context.memberships_url,  # type: ignore[typeddict-item]
         "service_versions": ["2.0"]})
    try:
        return list(service.get_members())
    except (LtiServiceException, LtiException, RequestException, ValueError) as exc:
        log.warning("roster fetch failed for context %s: %s", context.id, type(exc).__name__)
        raise ServiceError(ROSTER_UNREACHABLE) from exc
