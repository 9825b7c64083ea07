"""Every launch check, with a token we sign ourselves as the platform (or as an impostor).

Each rejected launch answers 400 with its reason and changes nothing recorded. A control case
proves the same crafted launch is accepted when nothing is wrong, so these tests can fail.
The claim checks run on the unit fixtures (Flask's test client, a key set on loopback); only
flows that need devlms itself (deep links, a cookie-blocking browser) use the live stack.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlparse

import jwt
import pytest
from flask import Flask
from flask.testing import FlaskClient
from lti1p3platform.registration import Registration
from sqlalchemy import func, select
from unit_launch import Platform
from unit_launch import claims as unit_claims
from unit_launch import login as unit_login

from devlms.browser import Browser
from devlms.config import new_private_key_pem, private_key, public_pem
from lti_service.checkpoints.models import CheckpointAttempt
from lti_service.core.extensions import state
from lti_service.core.models import LmsContext, LmsUser, Placement
from lti_service.lti.models import UsedNonce
from lti_service.outbox.models import ScoreOutbox

LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
TABLES = (LmsUser, LmsContext, Placement, UsedNonce, CheckpointAttempt, ScoreOutbox)


def _counts(sessions: Callable[[], Any]) -> dict[str, int]:
    with sessions() as session:
        return {t.__tablename__: session.scalar(select(func.count()).select_from(t))
                for t in TABLES}


def counts(stack) -> dict[str, int]:  # type: ignore[no-untyped-def]
    return _counts(stack.db)


def app_counts(app: Flask) -> dict[str, int]:
    return _counts(state(app).sessions)


def login(stack, browser: Browser) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    cfg = stack.lms_config
    r = browser.http.get(stack.tool_url + "/lti/login", allow_redirects=False, params={
        "iss": cfg.issuer, "login_hint": "alice", "target_link_uri": cfg.tool_launch_url,
        "lti_message_hint": "crafted", "client_id": cfg.client_id})
    assert r.status_code == 302, r.text
    query = parse_qs(urlparse(r.headers["Location"]).query)
    return query["nonce"][0], query["state"][0]


# Stack helpers: the live-stack tests here and in test_outbox_rules / test_bounded_input use them.
def claims(stack, nonce: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    cfg = stack.lms_config
    now = int(time.time())
    return {
        "iss": cfg.issuer, "aud": cfg.client_id, "azp": cfg.client_id, "sub": "alice",
        "iat": now, "exp": now + 300, "nonce": nonce, "name": "Alice Learner",
        CLAIM + "message_type": "LtiResourceLinkRequest", CLAIM + "version": "1.3.0",
        CLAIM + "deployment_id": cfg.deployment_id,
        CLAIM + "target_link_uri": cfg.tool_launch_url,
        CLAIM + "resource_link": {"id": "crafted-link"},
        CLAIM + "roles": [LEARNER],
        CLAIM + "context": {"id": cfg.context_id, "title": "Crafted"},
        CLAIM + "custom": {"content_id": "arrays-04.checkpoint"},
    }


def platform_kid(stack) -> str:  # type: ignore[no-untyped-def]
    return Registration.get_jwk(public_pem(stack.lms_config.private_key_pem))["kid"]


def sign(stack, body: dict[str, Any], *, key: str | None = None,  # type: ignore[no-untyped-def]
         kid: str | None = None) -> str:
    return jwt.encode(body, private_key(key or stack.lms_config.private_key_pem), algorithm="RS256",
                      headers={"kid": kid or platform_kid(stack)})


def post(stack, browser: Browser, token: str, state: str):  # type: ignore[no-untyped-def]
    return browser.http.post(stack.tool_url + "/lti/launch", data={"id_token": token,
                                                                  "state": state},
                             allow_redirects=False, timeout=30)


# Unit helpers: the claim checks below run on the test client (unit_launch).
def crafted(platform: Platform, nonce: str) -> dict[str, Any]:
    return unit_claims(platform, nonce, sub="alice", role=LEARNER, context_id="course-1",
                       content_id="arrays-04.checkpoint", link_id="crafted-link")


def unit_sign(platform: Platform, body: dict[str, Any], *, key: str | None = None,
              kid: str | None = None) -> str:
    return jwt.encode(body, private_key(key or platform.private_key_pem), algorithm="RS256",
                      headers={"kid": kid or platform.kid})


def unit_post(client: FlaskClient, token: str, state_value: str):  # type: ignore[no-untyped-def]
    return client.post("/lti/launch", data={"id_token": token, "state": state_value})


def test_crafted_launch_is_accepted_when_nothing_is_wrong(app: Flask, client: FlaskClient,
                                                          platform: Platform) -> None:
    nonce, state_value = unit_login(client, platform, "alice")
    r = unit_post(client, unit_sign(platform, crafted(platform, nonce)), state_value)
    assert r.status_code == 302, r.get_data(as_text=True)
    assert "/learn/" in r.headers["Location"]
    assert app_counts(app)["used_nonces"] == 1


Mutation = Callable[[dict[str, Any]], None]


def _set(key: str, value: Any) -> Mutation:
    return lambda body: body.__setitem__(key, value)


def _drop(key: str) -> Mutation:
    return lambda body: body.pop(key)


CASES: dict[str, tuple[Mutation, str]] = {
    "wrong iss": (_set("iss", "https://evil.example"), "registration"),
    "wrong aud": (_set("aud", "someone-else"), "registration"),
    "aud list without azp": (lambda b: (b.__setitem__("aud", [b["aud"], "other"]),
                                        b.pop("azp")), "azp is missing"),
    "azp mismatch": (_set("azp", "someone-else"), "azp"),
    "expired exp": (lambda b: b.update(exp=int(time.time()) - 60,
                                       iat=int(time.time()) - 400), "expired"),
    "future iat": (lambda b: b.update(iat=int(time.time()) + 3600,
                                      exp=int(time.time()) + 7200), "not yet valid"),
    "missing exp": (_drop("exp"), "exp"),
    "unknown deployment": (_set(CLAIM + "deployment_id", "nope"), "deployment"),
    "wrong message type": (_set(CLAIM + "message_type", "LtiStartProctoring"),
                           "unrecognized message type"),
    "data privacy message": (lambda b: (b.__setitem__(CLAIM + "message_type",
                                                      "DataPrivacyLaunchRequest"),
                                        b.pop(CLAIM + "resource_link"), b.pop(CLAIM + "context"),
                                        b.__setitem__(CLAIM + "for_user", {"user_id": "alice"})),
                             "not supported"),
    "submission review message": (_set(CLAIM + "message_type", "LtiSubmissionReviewRequest"),
                                  "grade services"),
    "wrong version": (_set(CLAIM + "version", "1.1.0"), "version"),
    "missing roles": (_drop(CLAIM + "roles"), "Roles"),
    "missing sub": (_drop("sub"), "sub"),
    "unknown nonce": (_set("nonce", "never-issued"), "Nonce"),
    "unknown content id": (_set(CLAIM + "custom", {"content_id": "arrays-99.checkpoint"}),
                           "arrays-99.checkpoint"),
    "no context": (_drop(CLAIM + "context"), "context"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_claims_are_rejected_and_change_nothing(app: Flask, client: FlaskClient,
                                                   platform: Platform, case: str) -> None:
    mutate, reason = CASES[case]
    nonce, state_value = unit_login(client, platform, "alice")
    before = app_counts(app)
    body = crafted(platform, nonce)
    mutate(body)
    r = unit_post(client, unit_sign(platform, body), state_value)
    text = r.get_data(as_text=True)
    assert r.status_code == 400, (case, r.status_code, text[:300])
    assert reason.lower() in text.lower(), (case, text[:500])
    assert app_counts(app) == before


def test_bad_signature_unknown_kid_and_malformed_jwt(app: Flask, client: FlaskClient,
                                                     platform: Platform) -> None:
    impostor = new_private_key_pem()
    before = app_counts(app)
    for label, make, reason in [
        ("bad signature", lambda b: unit_sign(platform, b, key=impostor), "signature"),
        ("unknown kid", lambda b: unit_sign(platform, b, kid="kid-nobody-published"), "public key"),
        ("two parts", lambda b: "abc.def", "3 parts"),
        ("garbage", lambda b: "a.b.c", "be decoded"),
        ("unsigned", lambda b: jwt.encode(b, "", algorithm="none",
                                          headers={"kid": platform.kid}), "public key"),
    ]:
        nonce, state_value = unit_login(client, platform, "alice")
        r = unit_post(client, make(crafted(platform, nonce)), state_value)
        text = r.get_data(as_text=True)
        assert r.status_code == 400, (label, text[:300])
        assert reason.lower() in text.lower(), (label, text[:400])
    assert app_counts(app) == before


def test_bad_state_is_rejected(app: Flask, client: FlaskClient, platform: Platform) -> None:
    nonce, _state = unit_login(client, platform, "alice")
    before = app_counts(app)
    r = unit_post(client, unit_sign(platform, crafted(platform, nonce)),
                  "state-" + str(uuid.uuid4()))
    assert r.status_code == 400
    assert "state" in r.get_data(as_text=True).lower()
    assert app_counts(app) == before


def test_nonce_replay_is_refused(app: Flask, client: FlaskClient, platform: Platform,
                                 caplog: pytest.LogCaptureFixture) -> None:
    nonce, state_value = unit_login(client, platform, "alice")
    token = unit_sign(platform, crafted(platform, nonce))
    assert unit_post(client, token, state_value).status_code == 302
    after_first = app_counts(app)
    again = unit_post(client, token, state_value)
    assert again.status_code == 400
    assert "replay" in again.get_data(as_text=True)
    assert app_counts(app) == after_first
    assert token not in caplog.text, "a log line carries the id_token"


def test_blocked_cookies_get_a_new_window_that_works(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    link = stack.deep_link(["arrays-04"])[0]
    before = counts(stack)
    framed = Browser(block_cookies=True)
    page = stack.launch(framed, link["id"], "bob")
    assert page.status_code == 200
    assert 'id="new-window"' in page.text and 'target="_blank"' in page.text
    assert counts(stack) == before
    href = page.text.split('id="new-window" href="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    window = Browser()
    opened = window.get(href)
    assert opened.status_code == 200, opened.text[:400]
    assert "After y = x.at[1].set(20.)" in opened.text
    assert counts(stack)["placements"] == before["placements"] + 1


def test_expired_protocol_rows_are_purged_by_the_consumer_timer(sqlite_stack,  # type: ignore[no-untyped-def]
                                                                 tmp_path) -> None:
    """Housekeeping left the login path (two DELETEs before every learner) for the consumer's
    timer: one pass of its loop drops expired launch data and replay-proof old nonces only."""
    from datetime import timedelta

    from grader_worker.config import load_config
    from grading_contract.queues import Queues
    from lti_service.consumer import Consumer
    from lti_service.core.extensions import state
    from lti_service.core.models import Platform, utcnow
    from lti_service.lti.models import LtiStorage
    from lti_service.submissions.settings import GradingSettings

    stack = sqlite_stack
    with stack.db() as session:
        platform_id = session.scalars(select(Platform.id)).one()
        session.add_all([
            LtiStorage(key="lti1p3-old", value=True, expires_at=utcnow() - timedelta(seconds=1)),
            LtiStorage(key="lti1p3-live", value=True, expires_at=utcnow() + timedelta(hours=1)),
            UsedNonce(platform_id=platform_id, nonce="old", used_at=utcnow() - timedelta(days=2)),
            UsedNonce(platform_id=platform_id, nonce="recent", used_at=utcnow()),
        ])
        session.commit()
    login(stack, Browser())
    with stack.db() as session:
        assert session.get(LtiStorage, "lti1p3-old") is not None  # a login no longer purges
    queues = Queues(load_config({"PATHWAYS_VAR_DIR": str(tmp_path / "queues"),
                                 "PATHWAYS_QUEUE_PREFIX": "hk-"}))
    consumer = Consumer(state(stack.tool).sessions, queues, GradingSettings(),
                               deliver=lambda _s: consumer.stopping.set() or 0)
    consumer.run(idle_sleep_s=0.01)
    with stack.db() as session:
        assert session.get(LtiStorage, "lti1p3-old") is None
        assert session.get(LtiStorage, "lti1p3-live") is not None
        assert set(session.scalars(select(UsedNonce.nonce))) == {"recent"}
