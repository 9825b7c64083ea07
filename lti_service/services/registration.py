"""LTI Dynamic Registration (IMS LTI-DR 1.0) and the Canvas developer-key JSON.

The tool fetches the platform's OpenID configuration, posts its own client registration with
the one-time registration token, and stores the platform and deployment the answer names.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import requests
from sqlalchemy.orm import Session

from ..models import Platform
from .errors import ServiceError
from .platforms import add_platform

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


def _json(response: requests.Response, what: str) -> dict[str, Any]:
    if not response.ok:
        raise ServiceError(f"{what} answered HTTP {response.status_code}: start the "
                           "registration again from the LMS")
    try:
        data = response.json()
    except ValueError as exc:
        raise ServiceError(f"{what} did not answer JSON") from exc
    if not isinstance(data, dict):
        raise ServiceError(f"{what} did not answer a JSON object")
    return data


def register(session: Session, urls: ToolUrls, openid_configuration: str,
             registration_token: str | None) -> Platform:
    if urlparse(openid_configuration).scheme not in ("http", "https"):
        raise ServiceError("openid_configuration must be an http(s) URL",
                           field="openid_configuration")
    try:
        config = _json(requests.get(openid_configuration, timeout=15),
                       "the platform's OpenID configuration")
        issuer = str(config.get("issuer", ""))
        if not issuer or not openid_configuration.startswith(issuer.rstrip("/")):
            raise ServiceError(f"the configuration's issuer {issuer!r} does not match "
                               f"{openid_configuration!r}")
        for key in ("registration_endpoint", "authorization_endpoint", "token_endpoint",
                    "jwks_uri"):
            if not config.get(key):
                raise ServiceError(f"the platform's OpenID configuration has no {key}")
        headers = {"Authorization": f"Bearer {registration_token}"} if registration_token else {}
        answer = _json(requests.post(config["registration_endpoint"],
                                     json=client_registration(urls), headers=headers,
                                     timeout=15), "the platform's registration endpoint")
    except requests.RequestException as exc:
        raise ServiceError(f"the platform is not reachable ({type(exc).__name__})") from exc
    client_id = answer.get("client_id")
    deployment = (answer.get(TOOL_CONFIG) or {}).get("deployment_id")
    if not client_id or not deployment:
        raise ServiceError("the registration answer has no client_id or deployment_id")
    platform = add_platform(
        session, issuer=issuer, client_id=str(client_id),
        auth_login_url=config["authorization_endpoint"], auth_token_url=config["token_endpoint"],
        key_set_url=config["jwks_uri"], deployment_ids=[str(deployment)],
        auth_audience=config.get("authorization_server"),
        name=(config.get(PLATFORM_CONFIG) or {}).get("product_family_code", ""),
    )
    log.info("dynamic registration: platform %s client %s", issuer, client_id)
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
