"""A launch we sign ourselves with devlms's platform key: any user, role, LMS course or link.

devlms has one course; tests that need a second LMS course (an instructor of another course)
or a crafted link sign the id_token here and post it to the tool exactly as the platform does
(OIDC login first, so the state cookie and nonce are real).
"""

from __future__ import annotations

import time
import uuid
from typing import Any
from urllib.parse import parse_qs, urlparse

import jwt
from lti1p3platform.registration import Registration

from devlms.browser import Browser
from devlms.config import INSTRUCTOR, LEARNER, private_key, public_pem

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
__all__ = ["INSTRUCTOR", "LEARNER", "launch"]


def _login(stack: Any, browser: Browser, sub: str) -> tuple[str, str]:
    cfg = stack.lms_config
    r = browser.http.get(stack.tool_url + "/lti/login", allow_redirects=False, params={
        "iss": cfg.issuer, "login_hint": sub, "target_link_uri": cfg.tool_launch_url,
        "lti_message_hint": "signed", "client_id": cfg.client_id})
    assert r.status_code == 302, r.text
    query = parse_qs(urlparse(r.headers["Location"]).query)
    return query["nonce"][0], query["state"][0]


def launch(stack: Any, *, sub: str, role: str, context_id: str, content_id: str,
           link_id: str | None = None) -> tuple[str, int]:
    """A resource-link launch; returns (launch token, placement id) from the tool's redirect."""
    cfg = stack.lms_config
    browser = Browser()
    nonce, state = _login(stack, browser, sub)
    now = int(time.time())
    body = {
        "iss": cfg.issuer, "aud": cfg.client_id, "azp": cfg.client_id, "sub": sub,
        "iat": now, "exp": now + 300, "nonce": nonce, "name": sub.title(),
        CLAIM + "message_type": "LtiResourceLinkRequest", CLAIM + "version": "1.3.0",
        CLAIM + "deployment_id": cfg.deployment_id,
        CLAIM + "target_link_uri": cfg.tool_launch_url,
        CLAIM + "resource_link": {"id": link_id or "signed-" + uuid.uuid4().hex[:8]},
        CLAIM + "roles": [role],
        CLAIM + "context": {"id": context_id, "title": context_id},
        CLAIM + "custom": {"content_id": content_id},
    }
    kid = Registration.get_jwk(public_pem(cfg.private_key_pem))["kid"]
    token = jwt.encode(body, private_key(cfg.private_key_pem), algorithm="RS256",
                       headers={"kid": kid})
    r = browser.http.post(stack.tool_url + "/lti/launch", data={"id_token": token, "state": state},
                          allow_redirects=False, timeout=30)
    assert r.status_code == 302, r.text[:500]
    location = urlparse(r.headers["Location"])
    return parse_qs(location.query)["lt"][0], int(location.path.rstrip("/").split("/")[-1])
