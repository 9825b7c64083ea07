"""Dynamic Registration (from an operator's invite) against devlms, the Canvas developer-key JSON
and the JWKS."""

from __future__ import annotations

from datetime import timedelta

import requests
from lti_stack import Stack
from sqlalchemy import select

from devlms import create_app as create_lms
from devlms.server import LiveServer
from lti_service.core.models import Platform
from lti_service.lti.models import RegistrationInvite
from lti_service.lti.service import invites
from lti_service.lti.service.outbound import FAILED
from lti_service.lti.service.platforms import remove_platform


def invite(stack: Stack, hours: int = 1, issuer: str | None = None) -> str:
    with stack.db() as session:
        token, _ = invites.create(session, valid_for=timedelta(hours=hours), issuer=issuer)
        session.commit()
    return token


def test_dynamic_registration_from_an_invite_then_deep_link_works(sqlite_stack: Stack) -> None:
    stack = sqlite_stack
    cfg = stack.lms_config
    with stack.db() as session:
        remove_platform(session, cfg.issuer, cfg.client_id)
        session.commit()
    stack.lms_server.stop()
    stack.lms_server = LiveServer(create_lms(cfg, stack.lms_store, registration_token="t0k"),
                                  port=stack.lms_server.port).start()
    config_url = stack.lms_url + "/.well-known/openid-configuration"
    token = invite(stack, issuer=cfg.issuer)
    register = stack.tool_url + "/lti/register"
    bad = requests.get(register, timeout=30, params={
        "invite": token, "openid_configuration": config_url, "registration_token": "no"})
    assert bad.status_code == 400 and FAILED in bad.text  # the LMS refused: invite stays open
    ok = requests.get(register, timeout=30, params={
        "invite": token, "openid_configuration": config_url, "registration_token": "t0k"})
    assert ok.status_code == 200, ok.text
    # The page tells the platform to close its dialog from a same-origin script (CSP: no inline).
    assert '<script src="/static/registered.js"></script>' in ok.text
    script = requests.get(stack.tool_url + "/static/registered.js", timeout=30)
    assert script.status_code == 200 and "org.imsglobal.lti.close" in script.text
    with stack.db() as session:
        platform = session.scalars(select(Platform)).one()
        assert (platform.issuer, platform.client_id) == (cfg.issuer, cfg.client_id)
        assert [d.deployment_id for d in platform.deployments] == [cfg.deployment_id]
        assert platform.auth_token_url == stack.lms_url + "/token"
        used = session.scalars(select(RegistrationInvite)).one()
        assert used.used_at is not None and used.platform_id == platform.id
    assert len(stack.deep_link(["arrays-04"])) == 1
    missing = requests.get(register, params={"invite": invite(stack)}, timeout=30)
    assert missing.status_code == 400 and "openid_configuration" in missing.text


def test_canvas_developer_key_json(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    data = requests.get(sqlite_stack.tool_url + "/lti/canvas.json", timeout=30).json()
    base = sqlite_stack.tool_url
    assert data["oidc_initiation_url"] == base + "/lti/login"
    assert data["target_link_uri"] == base + "/lti/launch"
    assert data["public_jwk_url"] == base + "/lti/jwks"
    assert "https://purl.imsglobal.org/spec/lti-ags/scope/score" in data["scopes"]
    placements = data["extensions"][0]["settings"]["placements"]
    assert {p["placement"] for p in placements} == {"link_selection", "assignment_selection"}
    assert all(p["message_type"] == "LtiDeepLinkingRequest" for p in placements)


def test_proxy_fix_makes_cookies_secure_and_same_site_none(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    cfg = stack.lms_config
    client = stack.tool.test_client()
    r = client.get("/lti/login", headers={"X-Forwarded-Proto": "https",
                                          "X-Forwarded-Host": "tool.example.org"},
                   query_string={"iss": cfg.issuer, "login_hint": "alice",
                                 "target_link_uri": "https://tool.example.org/lti/launch",
                                 "client_id": cfg.client_id})
    assert r.status_code == 302, r.text
    assert "redirect_uri=https%3A%2F%2Ftool.example.org%2Flti%2Flaunch" in r.headers["Location"]
    cookie = r.headers["Set-Cookie"]
    assert "Secure" in cookie and "SameSite=None" in cookie and "HttpOnly" in cookie
