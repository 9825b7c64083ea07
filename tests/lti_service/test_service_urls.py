"""A registered platform cannot make the tool call other addresses (issue 25, item 0).

Every call to an LMS (token, AGS scores, NRPS roster) goes through the guarded fetch, only to the
platform's registered origins or the operator's allow-list for it; a launch naming another
origin is refused with nothing stored; what an LMS answered reaches the instructor only as a
short, printable excerpt.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from urllib.parse import parse_qs, urlparse

import pytest
import requests
from flask import Flask, Response, request
from sqlalchemy import func, select
from test_launch_rejections import CLAIM, claims, login, post, sign
from test_outbox_rules import AGS_CLAIM, ALL_AGS, deliver, link, platform, queue, row

from devlms.browser import Browser
from devlms.server import LiveServer, reserve_port
from lti_service.core.models import LmsContext, Placement, Platform
from lti_service.lti.models import UsedNonce
from lti_service.lti.service.outbound import OutboundPolicy

__all__ = ["platform"]  # the stub LMS fixture, shared with the outbox's tests
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
SECRET = "INTERNAL-ADMIN-SECRET"


@dataclass
class Internal:
    """An internal service the tool must never reach: it records every request."""

    hits: list[str] = field(default_factory=list)


@pytest.fixture
def internal() -> Iterator[tuple[Internal, str]]:
    seen = Internal()
    app = Flask("internal")

    @app.route("/<path:anything>", methods=["GET", "POST"])
    def anything(anything: str) -> Response:
        seen.hits.append(request.path)
        return Response(f'{{"{SECRET}": "root:x:0:0"}}', 400, content_type="application/json")

    server = LiveServer(app, port=reserve_port()).start()
    try:
        yield seen, server.url
    finally:
        server.stop()


def _counts(stack) -> tuple[int, int, int]:  # type: ignore[no-untyped-def]
    with stack.db() as session:
        return tuple(session.scalar(select(func.count()).select_from(t))  # type: ignore[return-value]
                     for t in (Placement, LmsContext, UsedNonce))


@pytest.mark.parametrize("where", ["lineitem", "lineitems", "memberships"])
def test_a_launch_naming_service_urls_elsewhere_is_refused_and_stores_nothing(
        sqlite_stack, internal, where) -> None:  # type: ignore[no-untyped-def]
    seen, url = internal
    before = _counts(sqlite_stack)
    browser = Browser()
    nonce, state = login(sqlite_stack, browser)
    body = claims(sqlite_stack, nonce)
    body[CLAIM + "resource_link"] = {"id": "link-ssrf", "title": "Activity"}
    if where == "memberships":
        body[NRPS_CLAIM] = {"context_memberships_url": url + "/admin/users",
                            "service_versions": ["2.0"]}
    else:
        body[AGS_CLAIM] = {"scope": ALL_AGS, where: url + "/admin/lineitems/1"}
    r = post(sqlite_stack, browser, sign(sqlite_stack, body), state)
    assert r.status_code == 400
    assert "not registered for" in r.text and url not in r.text
    assert _counts(sqlite_stack) == before, "nothing of the refused launch is stored"
    assert seen.hits == []


def test_a_stored_line_item_elsewhere_is_never_called_and_the_reason_is_uniform(
        sqlite_stack, platform, internal) -> None:  # type: ignore[no-untyped-def]
    seen, url = internal
    stub, stub_url = platform
    stub.scripts["ok"] = [(200, "OK", "text/plain", {})]
    rid = queue(sqlite_stack, link(sqlite_stack, stub_url, "ok"))
    with sqlite_stack.db() as session:  # a row stored before the check existed
        placement = session.get(Placement, row(sqlite_stack, rid).placement_id)
        placement.lineitem_url = url + "/admin/lineitems/1"
        session.commit()
    assert deliver(sqlite_stack) == 0
    got = row(sqlite_stack, rid)
    assert got.status == "pending" and got.last_error == "LMS not reachable: ConnectionError"
    assert seen.hits == [] and stub.posts == []


def test_private_targets_are_refused_by_the_operators_policy(sqlite_stack, platform) -> None:  # type: ignore[no-untyped-def]
    stub, url = platform
    stub.scripts["ok"] = [(200, "OK", "text/plain", {})]
    rid = queue(sqlite_stack, link(sqlite_stack, url, "ok"))
    assert deliver(sqlite_stack, rules=OutboundPolicy(allow_private=False)) == 0
    assert stub.token_scopes == [] and stub.posts == [], "nothing left the tool"
    assert row(sqlite_stack, rid).last_error == "LMS not reachable: ConnectionError"
    assert deliver(sqlite_stack, later=timedelta(hours=2),
                   rules=OutboundPolicy(allow_private=True)) == 1


def test_the_lms_answer_reaches_the_class_view_only_as_a_short_printable_excerpt(
        sqlite_stack, platform) -> None:  # type: ignore[no-untyped-def]
    stub, url = platform
    body = SECRET + "\x1b[31m\r\n<script>alert(1)</script>" + "x" * 5000
    stub.scripts["bad"] = [(400, body, "text/plain", {})]
    rid = queue(sqlite_stack, link(sqlite_stack, url, "bad"))
    assert deliver(sqlite_stack) == 0
    reason = row(sqlite_stack, rid).last_error
    assert reason.startswith("LMS answered HTTP 400: " + SECRET)
    assert len(reason) < 160 and all(c.isprintable() for c in reason)
    with sqlite_stack.db() as session:
        registered = session.scalars(select(Platform)).one()
        registered.auth_token_url = sqlite_stack.lms_config.url("/token")
        registered.service_origins = [url]
        session.commit()
    teacher = sqlite_stack.launch(Browser(), sqlite_stack.deep_link(["arrays-04"])[0]["id"],
                                  "teacher")
    token = parse_qs(urlparse(teacher.url).query)["lt"][0]
    page = requests.get(sqlite_stack.tool_url + "/instructor/class", params={"lt": token},
                        timeout=30)
    assert page.status_code == 200
    assert "<script>alert(1)" not in page.text and "x" * 200 not in page.text


def test_a_stored_roster_url_elsewhere_is_never_fetched(sqlite_stack, internal) -> None:  # type: ignore[no-untyped-def]
    seen, url = internal
    teacher = sqlite_stack.launch(Browser(), sqlite_stack.deep_link(["arrays-04"])[0]["id"],
                                  "teacher")
    token = parse_qs(urlparse(teacher.url).query)["lt"][0]
    with sqlite_stack.db() as session:
        for context in session.scalars(select(LmsContext)):
            context.memberships_url = url + "/admin/users"
        session.commit()
    page = requests.get(sqlite_stack.tool_url + "/instructor/class", params={"lt": token},
                        timeout=30)
    # The class view never fails for the LMS (issue 22): it shows the learners the tool knows,
    # with why the roster is not fresh.
    assert page.status_code == 200
    assert "roster is not reachable" in page.text and SECRET not in page.text
    assert seen.hits == []


def test_pylti1p3s_own_session_reaches_nothing(internal) -> None:  # type: ignore[no-untyped-def]
    """The launch object's session (pylti1p3's get_ags/get_nrps would use it) has no origin."""
    from lti_service.lti.adapter import no_requests

    seen, url = internal
    with pytest.raises(requests.ConnectionError):
        no_requests().get(url + "/admin")
    assert seen.hits == []
