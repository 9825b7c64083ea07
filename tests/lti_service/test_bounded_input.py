"""Bad input gets a 4xx, bounded, never a 500, never stored.

Signed launches with wrongly typed or oversized claims, oversized login parameters and id_tokens,
deeply nested JSON, loose policy integers: each is refused with a 4xx whose text names the
problem without echoing the value, and the row counts before and after are equal. The control
launches show the same crafted launch passes when nothing is wrong, so each case can fail.
"""

from __future__ import annotations

import base64
import json
import logging
from typing import Any
from urllib.parse import parse_qs, urljoin, urlparse

import pytest
import requests
from flask import Flask
from flask.testing import FlaskClient
from jwt.api_jws import PyJWS
from sqlalchemy import func, select
from test_launch_rejections import (
    CLAIM,
    app_counts,
    claims,
    counts,
    crafted,
    login,
    post,
    sign,
    unit_post,
    unit_sign,
)
from tool_pages import hidden
from unit_launch import Platform
from unit_launch import login as unit_login

from devlms.browser import Browser
from lti_service.core.extensions import state
from lti_service.core.models import Placement
from lti_service.lti.models import LtiStorage

INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
HUGE = 10**30


def storage_rows(stack) -> int:  # type: ignore[no-untyped-def]
    with stack.db() as session:
        return session.scalar(select(func.count()).select_from(LtiStorage))


def launch(stack, mutate=None, browser: Browser | None = None):  # type: ignore[no-untyped-def]
    """Log in, sign the claims (changed by ``mutate``), post them; the tool's answer."""
    browser = browser or Browser()
    nonce, state = login(stack, browser)
    body = claims(stack, nonce)
    if mutate:
        mutate(body)
    return post(stack, browser, sign(stack, body), state)


def unit_launch(client: FlaskClient, platform: Platform, mutate=None):  # type: ignore[no-untyped-def]
    """``launch`` on the unit fixtures: the test client, a platform key set on loopback."""
    nonce, state_value = unit_login(client, platform, "alice")
    body = crafted(platform, nonce)
    if mutate:
        mutate(body)
    return unit_post(client, unit_sign(platform, body), state_value)


def token_of(response: requests.Response) -> str:
    return parse_qs(urlparse(response.headers["Location"]).query)["lt"][0]


def api(stack, method: str, path: str, token: str, **kw):  # type: ignore[no-untyped-def]
    return requests.request(method, stack.tool_url + path, timeout=30,
                            headers={"X-Pathways-Launch": token, **kw.pop("headers", {})}, **kw)


def _set(key: str, value: Any):  # type: ignore[no-untyped-def]
    return lambda body: body.__setitem__(key, value)


def _custom(**values: Any):  # type: ignore[no-untyped-def]
    return lambda body: body[CLAIM + "custom"].update(values)


TYPED_CASES: dict[str, tuple[Any, str]] = {
    "roles as numbers": (_set(CLAIM + "roles", [1, 2]), "roles"),
    "roles as an object": (_set(CLAIM + "roles", {"role": "Learner"}), "roles"),
    "context as a string": (_set(CLAIM + "context", "course-1"), "context"),
    "context id as a number": (_set(CLAIM + "context", {"id": 7}), "context.id"),
    "resource_link as a string": (_set(CLAIM + "resource_link", "link-1"), "resource_link"),
    "resource_link without id": (_set(CLAIM + "resource_link", {"title": "x"}),
                                 "resource_link.id"),
    "custom as a list": (_set(CLAIM + "custom", ["content_id", "arrays-04"]), "custom"),
    "content_id as a number": (_custom(content_id=4), "content_id"),
    "name as an object": (_set("name", {"given": "Alice"}), "name"),
    "email as a list": (_set("email", ["a@example.com"]), "email"),
    "sub longer than its column": (_set("sub", "s" * 256), "sub"),
    "context id longer than its column": (_set(CLAIM + "context", {"id": "c" * 256}),
                                          "context.id"),
    "link id longer than its column": (_set(CLAIM + "resource_link", {"id": "l" * 256}),
                                       "resource_link.id"),
    "lineitem url as an object": (_set("https://purl.imsglobal.org/spec/lti-ags/claim/endpoint",
                                       {"lineitem": {"url": "x"}, "scope": []}), "lineitem"),
    "aud as a number": (_set("aud", 12), "registration not found"),
    "body is a list": (None, "not a JSON object"),
}


@pytest.mark.parametrize("case", sorted(TYPED_CASES))
def test_wrongly_typed_claims_get_400_and_change_nothing(app: Flask, client: FlaskClient,
                                                         platform: Platform, case: str) -> None:
    mutate, reason = TYPED_CASES[case]
    nonce, state_value = unit_login(client, platform, "alice")
    before = app_counts(app)
    if mutate is None:  # a signed token whose body is a JSON list, not an object
        token = PyJWS().encode(json.dumps([crafted(platform, nonce)]).encode(),
                               platform.private_key_pem, algorithm="RS256",
                               headers={"kid": platform.kid})
    else:
        body = crafted(platform, nonce)
        mutate(body)
        token = unit_sign(platform, body)
    r = unit_post(client, token, state_value)
    text = r.get_data(as_text=True)
    assert r.status_code == 400, (case, r.status_code, text[:300])
    assert reason.lower() in text.lower(), (case, text[:600])
    assert "s" * 100 not in text and "c" * 100 not in text, "the value is not echoed"
    assert app_counts(app) == before


def test_column_limits_on_every_database(stack) -> None:  # type: ignore[no-untyped-def]
    """PostgreSQL refuses a value longer than its column (a 500 before); SQLite keeps it. Text
    is cut to the column, identifiers and loose integers are refused, on both."""
    for mutate in (_set("sub", "s" * 256), _custom(max_attempts=str(HUGE)),
                   _set(CLAIM + "context", {"id": "c" * 256})):
        before = counts(stack)
        r = launch(stack, mutate)
        assert r.status_code == 400, r.text[:300]
        assert counts(stack) == before
    r = launch(stack, lambda b: b.update(
        name="N" * 1000, email="e" * 300 + "@example.com",
        **{CLAIM + "context": {"id": stack.lms_config.context_id, "title": "T" * 2000},
           CLAIM + "resource_link": {"id": "long-titles", "title": "L" * 2000}}))
    assert r.status_code == 302, r.text[:300]
    from lti_service.core.models import LmsContext, LmsUser
    with stack.db() as session:
        user = session.scalars(select(LmsUser)).one()
        assert user.name == "N" * 255 and user.email == ""
        assert session.scalars(select(LmsContext)).one().title == "T" * 500
        assert session.scalars(select(Placement)).one().title == "L" * 500


@pytest.mark.parametrize("aud_order", ["ours first", "ours second"])
def test_multi_audience_token_with_our_azp_is_accepted(app: Flask, client: FlaskClient,
                                                       platform: Platform, aud_order: str) -> None:
    ours = platform.client_id
    auds = [ours, "another-client"] if aud_order == "ours first" else ["another-client", ours]
    r = unit_launch(client, platform, lambda b: b.update(aud=auds, azp=ours))
    assert r.status_code == 302, r.get_data(as_text=True)[:400]
    assert app_counts(app)["used_nonces"] == 1
    r = unit_launch(client, platform, lambda b: b.update(aud=auds, azp="another-client"))
    assert r.status_code == 400, "azp must name us"
    assert app_counts(app)["used_nonces"] == 1


def test_resource_link_launch_posted_to_the_deep_link_endpoint_is_400(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    r = launch(stack, _set(CLAIM + "roles", [INSTRUCTOR]))
    assert r.status_code == 302, r.text[:300]
    before = counts(stack)
    links = dict(stack.lms_store.links)
    page = requests.get(urljoin(stack.tool_url, r.headers["Location"]), timeout=30)
    fields = hidden(page, "/answer")  # this launch's token and CSRF token, from its own page
    answer = requests.post(stack.tool_url + "/lti/deep-link", timeout=30,
                           data={**fields, "content_id": "arrays-04"})
    assert answer.status_code == 400, answer.text[:400]
    assert "not a deep-linking request" in answer.text
    assert counts(stack) == before and stack.lms_store.links == links


def test_oversized_login_parameters_are_refused_not_kept(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    cfg = stack.lms_config
    params = {"iss": cfg.issuer, "login_hint": "alice", "target_link_uri": cfg.tool_launch_url,
              "client_id": cfg.client_id}
    ok = requests.get(stack.tool_url + "/lti/login", allow_redirects=False, timeout=30,
                      params={**params, "lti_message_hint": "h" * 4096})
    assert ok.status_code == 302, "a hint at the limit is fine"
    kept = storage_rows(stack)
    for name, size in (("lti_message_hint", 4097), ("login_hint", 5000), ("client_id", 300)):
        r = requests.get(stack.tool_url + "/lti/login", allow_redirects=False, timeout=30,
                         params={**params, name: "h" * size})
        assert r.status_code == 400, (name, r.status_code)
        assert name in r.text and "h" * 100 not in r.text
    big = requests.post(stack.tool_url + "/lti/login", allow_redirects=False, timeout=60,
                        data={**params, "lti_message_hint": "h" * 1_500_000})
    assert big.status_code in (400, 413), big.status_code
    assert storage_rows(stack) == kept, "nothing stored for a refused login"


def test_long_values_are_excerpted_in_answers_and_logs(sqlite_stack, caplog) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    caplog.set_level(logging.INFO)
    cfg = stack.lms_config
    evil = "https://elsewhere.example/" + "x" * 900
    r = requests.get(stack.tool_url + "/lti/login", allow_redirects=False, timeout=30, params={
        "iss": cfg.issuer, "login_hint": "alice", "target_link_uri": evil,
        "client_id": cfg.client_id})
    assert r.status_code == 400 and "is not a URL of this tool" in r.text
    unknown = "arrays-99" + "y" * 240
    refused = launch(stack, _custom(content_id=unknown))
    assert refused.status_code == 400 and "which the course does not have" in refused.text
    ok = launch(stack)
    pid = int(urlparse(ok.headers["Location"]).path.rsplit("/", 1)[-1])
    field = api(stack, "POST", f"/api/placements/{pid}/checkpoint-answers", token_of(ok),
                json={"choice": "a", "z" * 5000: 1})
    assert field.status_code == 422
    logged = "\n".join(rec.getMessage() for rec in caplog.records
                       if rec.name.startswith("lti_service"))
    assert "422 invalid fields" in logged
    for text in (r.text, refused.text, field.text, logged):
        assert "x" * 100 not in text and "y" * 100 not in text and "z" * 100 not in text


def test_oversized_and_nested_id_tokens_are_refused_before_parsing(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    before = counts(stack)
    browser = Browser()
    nonce, state = login(stack, browser)
    padded = claims(stack, nonce)
    padded["https://example.com/padding"] = "p" * 70_000
    r = post(stack, browser, sign(stack, padded), state)
    assert r.status_code == 400 and "the limit is 65536" in r.text, r.text[:300]
    nested = base64.urlsafe_b64encode(b"[" * 40_000).rstrip(b"=").decode()
    for token in (f"{nested}.e30.c2ln", f"e30.{nested}.c2ln"):
        browser = Browser()
        nonce, state = login(stack, browser)
        r = post(stack, browser, token, state)
        assert r.status_code == 400, r.text[:300]
    three_mb = requests.post(stack.tool_url + "/lti/launch", timeout=60,
                             data={"id_token": "a" * 3_000_000, "state": state})
    assert three_mb.status_code == 413
    assert counts(stack) == before


def test_deeply_nested_json_bodies_get_400(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    learner = launch(stack)
    teacher = launch(stack, lambda b: b.update(sub="teacher", **{CLAIM + "roles": [INSTRUCTOR]}))
    pid = int(urlparse(learner.headers["Location"]).path.rsplit("/", 1)[-1])
    before = counts(stack)
    deep = "[" * 100_000 + "]" * 100_000
    for method, path, token in [
        ("POST", f"/api/placements/{pid}/checkpoint-answers", token_of(learner)),
        ("PATCH", f"/api/placements/{pid}/policy", token_of(teacher)),
    ]:
        r = api(stack, method, path, token, data=deep,
                headers={"Content-Type": "application/json"})
        assert r.status_code == 400, (path, r.status_code, r.text[:200])
        assert r.json()["error"]
    assert counts(stack) == before


def _max_attempts(stack, pid: int) -> int:  # type: ignore[no-untyped-def]
    with stack.db() as session:
        return session.get(Placement, pid).max_attempts


def test_policy_integers_are_strict_and_bounded(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    teacher = launch(stack, lambda b: b.update(sub="teacher", **{CLAIM + "roles": [INSTRUCTOR]}))
    pid = int(urlparse(teacher.headers["Location"]).path.rsplit("/", 1)[-1])
    path = f"/api/placements/{pid}/policy"
    for bad in ("5", 2.7, 5.0, True, 0, 101, HUGE, None):
        r = api(stack, "PATCH", path, token_of(teacher), json={"max_attempts": bad})
        assert r.status_code == 422, (bad, r.status_code)
        assert "max_attempts" in r.json()["fields"]
        assert _max_attempts(stack, pid) == 3
    r = api(stack, "PATCH", path, token_of(teacher), json={"max_attempts": 100})
    assert r.status_code == 200 and _max_attempts(stack, pid) == 100


@pytest.mark.parametrize("value", ["2.7", "1e30", str(HUGE), "0", "101", "-1", " 5", "５"])
def test_custom_max_attempts_is_strict_at_launch(app: Flask, client: FlaskClient,
                                                 platform: Platform, value: str) -> None:
    before = app_counts(app)
    r = unit_launch(client, platform, _custom(max_attempts=value))
    assert r.status_code == 400, (value, r.status_code)
    assert "max_attempts" in r.get_data(as_text=True)
    assert app_counts(app) == before
    ok = unit_launch(client, platform, _custom(max_attempts="100"))
    assert ok.status_code == 302
    pid = int(urlparse(ok.headers["Location"]).path.rsplit("/", 1)[-1])
    with state(app).sessions() as session:
        assert session.get(Placement, pid).max_attempts == 100


def test_deep_link_picker_refuses_loose_max_attempts(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    for bad in (str(HUGE), "2.7", "0"):
        teacher = Browser()
        picker = teacher.get(stack.lms_url + "/deep-link?user=teacher")
        assert picker.status_code == 200
        links = dict(stack.lms_store.links)
        r = teacher.submit(picker, data={"content_id": ["arrays-04"], "max_attempts": bad})
        assert r.status_code == 400, (bad, r.status_code, r.text[:300])
        assert "from 1 to 100" in r.text
        assert stack.lms_store.links == links
    assert len(stack.deep_link(["arrays-04"], max_attempts=100)) == 1


@pytest.mark.parametrize("value", [0, 101, HUGE])
def test_configured_default_max_attempts_is_bounded_too(tmp_path, value: int) -> None:  # type: ignore[no-untyped-def]
    from lti_service.core.config import Config

    settings = {"var_dir": tmp_path, "secret_key": "k", "database_url": "sqlite://"}
    assert Config.from_env({**settings, "default_max_attempts": 100}).default_max_attempts == 100
    with pytest.raises(ValueError, match="CHECKPOINT_MAX_ATTEMPTS"):
        Config.from_env({**settings, "default_max_attempts": value})
