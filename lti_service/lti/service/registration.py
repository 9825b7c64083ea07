"""LTI Dynamic Registration (IMS LTI-DR 1.0) and the Canvas developer-key JSON.

The tool fetches the platform's OpenID configuration, posts its own client registration with
the one-time registration token, and stores the platform and deployment the answer names.
It starts only from an operator's invite (``invites``), fetches only through ``outbound``, and
never changes an existing registration (``add_platform`` refuses one: 409, nothing changed).

No oracle: an invite bound to an issuer fetches nothing from another origin, and whatever was
fetched (no answer, a 404, JSON that is no OpenID configuration, an issuer or endpoints on another
origin, a registration answer without ids) the answer is ``outbound.FAILED``, the one message
of a failed fetch; the cause goes to the log only.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from sqlalchemy.orm import Session

from lti_service.core.errors import ServiceError
from lti_service.core.models import Platform
from lti_service.lti.models import RegistrationInvite
from lti_service.lti.service import invites
from lti_service.lti.service.outbound import (
    OutboundPolicy,
    OutboundRefused,
    fetch_json,
    same_origin,
)
from lti_service.lti.service.platforms import add_platform

log = logging.getLogger(__name__)
TOOL_CONFIG = "https://purl.imsglobal.org/spec/lti-tool-configuration"
PLATFORM_CONFIG = "https://purl.imsglobal.org/spec/lti-platform-configuration"
SCOPES = (
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
    "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly",
)


@dataclass(frozen=True)
class ToolUrls:
    login: str
    launch: str
    jwks: str
    title: str
    description: str = "Learn JAX step by step: lessons, checkpoints and graded exercises."


def client_registration(urls: ToolUrls) -> dict[str, Any]:
    return {
        "application_type": "web",
        "response_types": ["id_token"],
        "grant_types": ["implicit", "client_credentials"],
        "initiate_login_uri": urls.login,
        "redirect_uris": [urls.launch],
        "client_name": urls.title,
        "jwks_uri": urls.jwks,
        "token_endpoint_auth_method": "private_key_jwt",
        "scope": " ".join(SCOPES),
        TOOL_CONFIG: {
            "domain": urlparse(urls.launch).netloc,
            "target_link_uri": urls.launch,
            "description": urls.description,
            "claims": ["iss", "sub", "name", "email"],
            "messages": [{"type": "LtiDeepLinkingRequest", "target_link_uri": urls.launch,
                          "label": urls.title}],
        },
    }


def _id(value: Any) -> str | None:
    """A client or deployment id as the platform sent it (a string or a number), else None."""
    return str(value) if type(value) in (str, int) and value != "" else None


def _refuse(cause: str) -> OutboundRefused:
    """The uniform answer (module docstring); ``cause`` is logged, never answered."""
    log.warning("dynamic registration refused: %s", cause)
    return OutboundRefused()


SAME_ORIGIN_ENDPOINTS = ("registration_endpoint", "token_endpoint", "jwks_uri")
"""Endpoints the tool itself calls: on the issuer's origin only (the login endpoint is the
learner's browser's business)."""


def _endpoints(config: dict[str, Any], issuer: str) -> dict[str, str]:
    found = {}
    for key in ("registration_endpoint", "authorization_endpoint", "token_endpoint",
                "jwks_uri"):
        value = config.get(key)
        if not isinstance(value, str) or not value or len(value) > 1000:
            raise _refuse(f"the OpenID configuration has no usable {key}")
        if key in SAME_ORIGIN_ENDPOINTS and not same_origin(value, issuer):
            raise _refuse(f"the OpenID configuration's {key} is not on the issuer's origin")
        found[key] = value
    return found


def register(session: Session, urls: ToolUrls, openid_configuration: str,
             registration_token: str | None, *, invite: RegistrationInvite,
             rules: OutboundPolicy) -> Platform:
    """Register the platform an invited LMS names; never touches an existing registration.

    The caller has checked ``invite`` (before anything is fetched); it is consumed here, in the
    transaction that stores the platform. The issuer must share the configuration URL's scheme,
    host and port (else: register it with ``pathways platform add``).
    """
    if invite.issuer is not None and not same_origin(openid_configuration, invite.issuer):
        raise ServiceError("this registration link was made for another platform (issuer): ask "
                           "the tool's operator for one for this platform",
                           field="openid_configuration")
    config = fetch_json(openid_configuration, rules)
    issuer = config.get("issuer")
    if not isinstance(issuer, str) or len(issuer) > 500 \
            or not same_origin(issuer, openid_configuration):
        raise _refuse("the issuer is not on the openid_configuration URL's origin")
    if invite.issuer is not None and issuer != invite.issuer:
        raise _refuse("the issuer is not the one the invite is bound to")
    endpoints = _endpoints(config, issuer)
    headers = {"Authorization": f"Bearer {registration_token}"} if registration_token else {}
    answer = fetch_json(endpoints["registration_endpoint"], rules, method="POST",
                        payload=client_registration(urls), headers=headers,
                        same_origin_as=issuer)
    client_id = _id(answer.get("client_id"))
    tool_config = answer.get(TOOL_CONFIG)
    deployment = _id(tool_config.get("deployment_id")) if isinstance(tool_config, dict) else None
    if client_id is None or deployment is None or len(client_id) > 255 or len(deployment) > 255:
        raise _refuse("the registration answer has no usable client_id or deployment_id")
    platform_config = config.get(PLATFORM_CONFIG)
    name = platform_config.get("product_family_code", "") \
        if isinstance(platform_config, dict) else ""
    audience = config.get("authorization_server")
    platform = add_platform(
        session, issuer=issuer, client_id=client_id,
        auth_login_url=endpoints["authorization_endpoint"],
        auth_token_url=endpoints["token_endpoint"], key_set_url=endpoints["jwks_uri"],
        deployment_ids=[deployment],
        auth_audience=audience if isinstance(audience, str) else None,
        name=str(name)[:255],
    )
    invites.consume(session, invite, platform.id)
    log.info("dynamic registration: platform %s client %s (invite %s)", issuer, client_id,
             invite.id)
    return platform


def canvas_config(urls: ToolUrls) -> dict[str, Any]:
    """The JSON a Canvas admin pastes (or links) when creating an LTI developer key."""
    placement = {"text": urls.title, "message_type": "LtiDeepLinkingRequest",
                 "target_link_uri": urls.launch}
    return {
        "title": urls.title,
        "description": urls.description,
        "oidc_initiation_url": urls.login,
        "target_link_uri": urls.launch,
        "public_jwk_url": urls.jwks,
        "scopes": list(SCOPES),
        "extensions": [{
            "platform": "canvas.instructure.com",
            "privacy_level": "public",
            "settings": {
                "placements": [{**placement, "placement": "link_selection"},
                               {**placement, "placement": "assignment_selection"}],
            },
        }],
        "custom_fields": {},
    }
