"""Registration and outbound requests, attacked as an outsider would (issue 9, registration).

Through the real tool app and devlms (lti1p3platform), with a probe HTTP server standing in for a
hostile "platform" or an internal service. Each refusal is a 4xx and leaves the database as it
was; an attacker's target never receives what it should not.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from lti_stack import Stack
from probe_server import ProbeServer, raw_listener
from sqlalchemy import delete, select

from devlms import create_app as create_lms
from devlms.browser import Browser
from devlms.server import LiveServer, free_port
from lti_service.core.extensions import state
from lti_service.core.models import LmsUser, Platform, utcnow
from lti_service.lti.models import LtiStorage, RegistrationInvite
from lti_service.lti.service import invites, keysets
from lti_service.lti.service.outbound import FAILED
from lti_service.lti.service.platforms import update_platform
from lti_service.lti.service.registration import TOOL_CONFIG


@pytest.fixture
def probe() -> Iterator[ProbeServer]:
    server = ProbeServer()
    yield server
    server.stop()


def new_invite(stack: Stack, **kw: Any) -> str:
    with stack.db() as session:
        token, _ = invites.create(session, valid_for=kw.pop("valid_for", timedelta(hours=1)),
                                  **kw)
        session.commit()
    return token


def platforms(stack: Stack) -> list[tuple[Any, ...]]:
    """Every registration with every field an attacker would want to change."""
    with stack.db() as session:
        return [(p.issuer, p.client_id, p.auth_login_url, p.auth_token_url, p.key_set_url,
                 p.auth_audience, sorted(d.deployment_id for d in p.deployments))
                for p in session.scalars(select(Platform).order_by(Platform.id))]


def register(stack: Stack, invite: str | None, config_url: str, **extra: str) -> Any:
    params = {"openid_configuration": config_url, **extra}
    if invite is not None:
        params["invite"] = invite
    return stack.tool.test_client().get("/lti/register", query_string=params,
                                        base_url=stack.tool_url)


def hostile_platform(probe: ProbeServer, issuer: str, client_id: str = "fake") -> str:
    """The probe serves an OpenID configuration claiming ``issuer``; returns its URL."""
    probe.config = {"issuer": issuer, "authorization_endpoint": probe.url + "/auth",
                    "token_endpoint": probe.url + "/token", "jwks_uri": probe.url + "/json",
                    "registration_endpoint": probe.url + "/register"}
    probe.registration_answer = {"client_id": client_id, TOOL_CONFIG: {"deployment_id": "d9"}}
    return probe.url + "/config"


def test_without_an_open_invite_nothing_is_fetched(sqlite_stack: Stack,
                                                   probe: ProbeServer) -> None:
    stack = sqlite_stack
    config_url = hostile_platform(probe, probe.url)
    before = platforms(stack)
    expired = new_invite(stack, valid_for=timedelta(hours=1))
    with stack.db() as session:
        for row in session.scalars(select(RegistrationInvite)):
            row.expires_at = utcnow() - timedelta(seconds=1)
        session.commit()
    for invite in (None, "", "not-an-invite", "x" * 5000, expired):
        answer = register(stack, invite, config_url)
        assert answer.status_code == 403, answer.text
        assert "ask the tool" in answer.text
    assert probe.hits == []
    assert platforms(stack) == before


def test_an_invite_registers_once(sqlite_stack: Stack, probe: ProbeServer) -> None:
    stack = sqlite_stack
    config_url = hostile_platform(probe, probe.url)
    invite = new_invite(stack)
    first = register(stack, invite, config_url)
    assert first.status_code == 200, first.text
    assert probe.hits == [("GET", "/config"), ("POST", "/register")]
    after_first = platforms(stack)
    assert (probe.url, "fake") in {row[:2] for row in after_first}
    probe.registration_answer = {"client_id": "second", TOOL_CONFIG: {"deployment_id": "d"}}
    again = register(stack, invite, config_url)
    assert again.status_code == 403
    assert len(probe.hits) == 2 and platforms(stack) == after_first


def test_an_invite_for_one_issuer_refuses_another(sqlite_stack: Stack,
                                                  probe: ProbeServer) -> None:
    stack = sqlite_stack
    before = platforms(stack)
    invite = new_invite(stack, issuer="https://canvas.example.edu")
    answer = register(stack, invite, hostile_platform(probe, probe.url))
    assert answer.status_code == 400 and "another platform" in answer.text
    assert probe.hits == [], "the configuration URL's origin is checked before any fetch"
    assert platforms(stack) == before


def test_registration_takeover_is_refused_and_nothing_changes(sqlite_stack: Stack,
                                                              probe: ProbeServer) -> None:
    stack = sqlite_stack
    cfg = stack.lms_config
    # A platform on the probe's own origin, already registered with client id "victim".
    with stack.db() as session:
        from lti_service.lti.service.platforms import add_platform

        add_platform(session, issuer=probe.url, client_id="victim",
                     auth_login_url="https://real.example/auth",
                     auth_token_url="https://real.example/token",
                     key_set_url="https://real.example/jwks", deployment_ids=["real"])
        session.commit()
    before = platforms(stack)
    invite = new_invite(stack)
    # 1. The real devlms registers again with its existing client id (it answers the same one).
    stack.lms_server.stop()
    stack.lms_server = LiveServer(create_lms(cfg, stack.lms_store, registration_token="t0k"),
                                  port=stack.lms_server.port).start()
    again = register(stack, invite, stack.lms_url + "/.well-known/openid-configuration",
                     registration_token="t0k")
    assert again.status_code == 409, again.text
    assert "never changes an existing one" in again.text
    # 2. A hostile platform on the victim's origin names the victim's client id with its keys.
    swap = register(stack, invite, hostile_platform(probe, probe.url, client_id="victim"))
    assert swap.status_code == 409, swap.text
    assert platforms(stack) == before
    with stack.db() as session:
        assert session.scalars(select(RegistrationInvite)).one().used_at is None


@pytest.mark.parametrize("claimed", ["prefix", "devlms"])
def test_spoofed_issuer_is_refused(sqlite_stack: Stack, probe: ProbeServer,
                                   claimed: str) -> None:
    """The configuration claims an issuer of another origin: a string prefix of its URL
    (``http://127.0.0.1`` for ``http://127.0.0.1:PORT/config``, which ``startswith`` accepted),
    or the registered devlms's issuer."""
    stack = sqlite_stack
    issuer = "http://127.0.0.1" if claimed == "prefix" else stack.lms_config.issuer
    config_url = hostile_platform(probe, issuer, client_id=stack.lms_config.client_id)
    assert config_url.startswith(issuer) or claimed == "devlms"
    before = platforms(stack)
    answer = register(stack, new_invite(stack), config_url)
    assert answer.status_code == 400, answer.text
    assert FAILED in answer.text  # the one message of every failed registration
    assert probe.hits == [("GET", "/config")]  # nothing was posted
    assert platforms(stack) == before


def test_ssrf_probes_all_get_one_answer(sqlite_stack: Stack, probe: ProbeServer) -> None:
    stack = sqlite_stack
    state(stack.tool).config.outbound_timeout_s = 1.0
    invite = new_invite(stack)
    before = platforms(stack)
    port = probe.server.port
    with raw_listener(None) as silent, raw_listener(b"SSH-2.0-OpenSSH_9.6\r\n") as ssh:
        targets = {
            "closed port": f"http://127.0.0.1:{free_port()}/",
            "open port, silent": f"http://127.0.0.1:{silent}/",
            "open port, ssh": f"http://127.0.0.1:{ssh}/",
            "404": probe.url + "/missing",
            "oversized": probe.url + "/big",
            "redirect to another host": f"{probe.url}/other-host?to=http://localhost:{port}/json",
            "file scheme": "file:///etc/passwd",
            "gopher scheme": f"gopher://127.0.0.1:{port}/",
        }
        answers = {what: register(stack, invite, url) for what, url in targets.items()}
    bodies = {(a.status_code, a.get_data(as_text=True)) for a in answers.values()}
    assert len(bodies) == 1, {w: a.status_code for w, a in answers.items()}
    status, body = bodies.pop()
    assert status == 400 and FAILED in body
    assert ("GET", "/json") not in probe.hits  # the redirect's other host was never asked

    # 2xx JSON that is no configuration, or a configuration whose parts are wrong: the same.
    answer = register(stack, invite, probe.url + "/json")
    assert (answer.status_code, answer.get_data(as_text=True)) == (status, body)
    wrong = {"issuer on another origin": {"issuer": "http://127.0.0.1:1"},
             "token endpoint elsewhere": {"token_endpoint": f"http://127.0.0.1:{free_port()}/t"},
             "key set elsewhere": {"jwks_uri": "http://169.254.169.254/latest/meta-data/"},
             "registration endpoint elsewhere": {
                 "registration_endpoint": f"http://localhost:{port}/register"},
             "no registration endpoint": {"registration_endpoint": None}}
    for what, change in wrong.items():
        config_url = hostile_platform(probe, probe.url)
        probe.config.update(change)
        answer = register(stack, invite, config_url)
        assert (answer.status_code, answer.get_data(as_text=True)) == (status, body), what
    assert ("POST", "/register") not in probe.hits
    config_url = hostile_platform(probe, probe.url)
    probe.registration_answer = {"client_id": "c"}  # no deployment id
    answer = register(stack, invite, config_url)
    assert (answer.status_code, answer.get_data(as_text=True)) == (status, body)

    state(stack.tool).config.outbound_allow_private = False
    probe.hits.clear()
    for url in (probe.url + "/json", f"http://localhost:{port}/json"):
        refused = register(stack, invite, url)
        assert (refused.status_code, refused.get_data(as_text=True)) == (status, body)
    assert probe.hits == []
    assert platforms(stack) == before


def test_launch_key_set_fetch_is_guarded(sqlite_stack: Stack, probe: ProbeServer) -> None:
    stack = sqlite_stack
    cfg = stack.lms_config
    link = stack.deep_link(["arrays-04"])[0]
    config = state(stack.tool).config

    def launched_users() -> int:
        with stack.db() as session:
            return len(list(session.scalars(select(LmsUser))))

    users = launched_users()
    with stack.db() as session:  # a cold key-set cache (lti.service.keysets): the fetch happens
        session.execute(delete(LtiStorage).where(LtiStorage.key.startswith(keysets.KEY_PREFIX)))
        session.commit()
    config.outbound_allow_private = False
    refused = stack.launch(Browser(), link["id"], "alice")
    assert refused.status_code == 400 and FAILED in refused.text
    assert launched_users() == users

    config.outbound_allow_private = True
    with stack.db() as session:  # the key set moved behind a redirect to another host
        update_platform(session, cfg.issuer, cfg.client_id,
                        key_set_url=f"{probe.url}/other-host?to=http://localhost:"
                                    f"{stack.lms_server.port}/jwks")
        session.commit()
    moved = stack.launch(Browser(), link["id"], "alice")
    assert moved.status_code == 400 and FAILED in moved.text
    assert launched_users() == users

    with stack.db() as session:
        update_platform(session, cfg.issuer, cfg.client_id, key_set_url=cfg.url("/jwks"))
        session.commit()
    ok = stack.launch(Browser(), link["id"], "alice")
    assert ok.status_code == 200, ok.text
    assert launched_users() == users + 1
