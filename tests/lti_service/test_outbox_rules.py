"""The outbox against a platform that answers like real ones do: ``200 OK`` text, 400, 401, 429
and 503, from a real HTTP server on loopback (``Platform`` below), reached through signed
launches that carry its line item URLs.

Each score reaches the gradebook once: a 2xx is delivered whatever its body and never posted
again; a refusal is ``failed`` at once with the LMS's reason; a busy or down LMS is retried with
backoff up to a cap; one bad score never holds up the others; a resend posts a new timestamp.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
import requests
from flask import Flask, Response, request
from sqlalchemy import select
from test_launch_rejections import CLAIM, claims, login, post, sign
from tool_pages import hidden

from devlms.browser import Browser
from devlms.server import LiveServer, free_port, reserve_port
from lti_service.core.models import Placement, Platform, utcnow
from lti_service.lti.models import AccessToken
from lti_service.outbox.models import ScoreOutbox
from lti_service.outbox.service.delivery import SCORE_SCOPE, deliver_due, judge, requeue
from lti_service.outbox.service.scores import record_score

AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
ALL_AGS = ["https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
           "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly", SCORE_SCOPE]
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
Answer = tuple[int, str, str, dict[str, str]]  # status, body, content type, headers
OK_TEXT: Answer = (200, "OK", "text/plain", {})


@dataclass
class Platform_:
    """What the stub platform was asked and what it answers, per line item."""

    scripts: dict[str, list[Answer]] = field(default_factory=dict)
    posts: list[dict[str, Any]] = field(default_factory=list)
    token_scopes: list[str] = field(default_factory=list)
    refused_tokens: set[str] = field(default_factory=set)
    stored: set[tuple[str, str, str]] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, item: str) -> Answer:
        script = self.scripts[item]
        return script.pop(0) if len(script) > 1 else script[0]

    def posted(self, item: str) -> list[dict[str, Any]]:
        return [p for p in self.posts if p["item"] == item]


def platform_app(platform: Platform_) -> Flask:
    app = Flask("stub-platform")

    @app.post("/token")
    def token() -> Response:
        with platform.lock:
            platform.token_scopes.append(request.form["scope"])
            n = len(platform.token_scopes)
        return Response(f'{{"access_token": "tok-{n}", "token_type": "Bearer", '
                        '"expires_in": 3600}', content_type="application/json")

    @app.post("/lineitems/<item>/scores")
    def scores(item: str) -> Response:
        score = request.get_json(force=True)
        bearer = request.headers.get("Authorization", "").removeprefix("Bearer ")
        with platform.lock:
            platform.posts.append({"item": item, "token": bearer, "score": score,
                                   "content_type": request.content_type})
            if bearer in platform.refused_tokens:
                return Response('{"error": "invalid token"}', 401,
                                content_type="application/json")
            if item == "openedx":  # Open edX: one score per (user, timestamp)
                key = (item, score["userId"], score["timestamp"])
                if key in platform.stored:
                    return Response('{"detail": "Score already exists for the provided '
                                    'timestamp"}', 400, content_type="application/json")
                platform.stored.add(key)
                return Response("", 204)
            status, body, content_type, headers = platform.answer(item)
        if item == "slow":
            time.sleep(0.5)
        return Response(body, status, content_type=content_type, headers=headers)

    return app


@contextmanager
def stub_platform(stack) -> Iterator[tuple[Platform_, str]]:  # type: ignore[no-untyped-def]
    """The stub platform on loopback; the stack's registration gets its token URL."""
    state = Platform_()
    server = LiveServer(platform_app(state), port=reserve_port()).start()
    with stack.db() as session:
        session.scalars(select(Platform)).one().auth_token_url = server.url + "/token"
        session.commit()
    try:
        yield state, server.url
    finally:
        server.stop()


@pytest.fixture
def platform(sqlite_stack) -> Iterator[tuple[Platform_, str]]:  # type: ignore[no-untyped-def]
    with stub_platform(sqlite_stack) as stub:
        yield stub


def link(stack, url: str, item: str, *, user: str = "alice",  # type: ignore[no-untyped-def]
         scopes: list[str] | None = None) -> int:
    """A signed launch of a link whose line item lives on the stub; the placement id."""
    browser = Browser()
    nonce, state = login(stack, browser)
    body = claims(stack, nonce)
    body["sub"] = user
    body[CLAIM + "resource_link"] = {"id": "link-" + item, "title": "Activity " + item}
    body[AGS_CLAIM] = {"scope": ALL_AGS if scopes is None else scopes,
                       "lineitem": f"{url}/lineitems/{item}", "lineitems": f"{url}/lineitems"}
    r = post(stack, browser, sign(stack, body), state)
    assert r.status_code == 302, r.text[:300]
    return int(urlparse(r.headers["Location"]).path.rsplit("/", 1)[-1])


def queue(stack, placement_id: int, score: float = 1.0, user: str = "alice") -> int:  # type: ignore[no-untyped-def]
    from lti_service.core.models import LmsUser

    with stack.db() as session:
        row = record_score(session, placement=session.get(Placement, placement_id),
                           user=session.scalar(select(LmsUser).where(LmsUser.sub == user)),
                           score=score, max_score=1.0, source="test")
        session.commit()
        return row.id


def deliver(stack, *, later: timedelta = timedelta(0), **kw: Any) -> int:  # type: ignore[no-untyped-def]
    """The outbox's delivery under the stack's outbound policy unless ``rules`` is given."""
    kw.setdefault("rules", stack.rules)
    with stack.db() as session:
        return deliver_due(session, now=utcnow() + later, **kw)


def row(stack, row_id: int) -> ScoreOutbox:  # type: ignore[no-untyped-def]
    with stack.db() as session:
        found = session.get(ScoreOutbox, row_id)
        session.expunge(found)
        return found


@pytest.mark.parametrize("answer", [OK_TEXT, (200, "", "text/plain", {}), (204, "", "", {}),
                                    (201, '{"resultUrl": "x"}', "application/json", {})],
                         ids=["200 text OK", "200 empty", "204", "201 json"])
def test_any_2xx_is_delivered_once_whatever_the_body(sqlite_stack, platform, answer) -> None:  # type: ignore[no-untyped-def]
    stub, url = platform
    stub.scripts["ok"] = [answer]
    rid = queue(sqlite_stack, link(sqlite_stack, url, "ok"))
    assert deliver(sqlite_stack) == 1
    got = row(sqlite_stack, rid)
    assert (got.status, got.tries, got.last_error) == ("delivered", 1, "")
    assert deliver(sqlite_stack, later=timedelta(days=2)) == 0
    assert len(stub.posted("ok")) == 1, "delivered means never posted again"
    assert stub.posted("ok")[0]["content_type"] == "application/vnd.ims.lis.v1.score+json"


@pytest.mark.parametrize("reason", ["User not found", "Invalid grade: scoreGiven > maximum",
                                    "Score already exists for the provided timestamp"])
def test_other_4xx_fails_at_once_with_the_lms_message(sqlite_stack, platform, reason) -> None:  # type: ignore[no-untyped-def]
    stub, url = platform
    stub.scripts["bad"] = [(400, '{"detail": "' + reason + '"}' + "x" * 5000 + "tail-marker",
                            "application/json", {})]
    rid = queue(sqlite_stack, link(sqlite_stack, url, "bad"))
    assert deliver(sqlite_stack) == 0
    got = row(sqlite_stack, rid)
    assert (got.status, got.tries) == ("failed", 1)
    assert "HTTP 400" in got.last_error and reason in got.last_error
    assert len(got.last_error) <= 310 and "tail-marker" not in got.last_error
    assert deliver(sqlite_stack, later=timedelta(days=2)) == 0
    assert len(stub.posted("bad")) == 1, "a refusal is not posted again by itself"


def test_401_refreshes_the_token_once_and_the_same_try_delivers(sqlite_stack, platform) -> None:  # type: ignore[no-untyped-def]
    stub, url = platform
    stub.scripts["ok"] = [OK_TEXT]
    pid = link(sqlite_stack, url, "ok")
    queue(sqlite_stack, pid)
    assert deliver(sqlite_stack) == 1
    assert stub.token_scopes == [SCORE_SCOPE]
    stub.refused_tokens.add("tok-1")  # the LMS voided the stored token
    rid = queue(sqlite_stack, pid, 0.5)
    assert deliver(sqlite_stack) == 1
    got = row(sqlite_stack, rid)
    assert (got.status, got.tries) == ("delivered", 1)
    assert [p["token"] for p in stub.posted("ok")] == ["tok-1", "tok-1", "tok-2"]
    assert len(stub.token_scopes) == 2, "one refresh"
    with sqlite_stack.db() as session:
        assert session.scalars(select(AccessToken)).one().token == "tok-2"


def test_a_refused_fresh_token_is_retried_later_not_looped(sqlite_stack, platform) -> None:  # type: ignore[no-untyped-def]
    stub, url = platform
    stub.scripts["ok"] = [OK_TEXT]
    stub.refused_tokens.update({"tok-1", "tok-2"})
    rid = queue(sqlite_stack, link(sqlite_stack, url, "ok"))
    assert deliver(sqlite_stack) == 0
    got = row(sqlite_stack, rid)
    assert (got.status, got.tries) == ("pending", 1) and "HTTP 401" in got.last_error
    assert len(stub.posted("ok")) == 1, "a fresh token refused is not posted again at once"
    assert deliver(sqlite_stack, later=timedelta(hours=2)) == 0
    assert deliver(sqlite_stack, later=timedelta(hours=4)) == 1
    assert [p["token"] for p in stub.posted("ok")] == ["tok-1", "tok-2", "tok-3"]


def test_429_and_503_retry_with_backoff_then_fail_at_the_cap(sqlite_stack, platform) -> None:  # type: ignore[no-untyped-def]
    stub, url = platform
    stub.scripts["busy"] = [(429, "Too Many Requests", "text/plain", {"Retry-After": "600"})]
    stub.scripts["down"] = [(503, "<html>Service Unavailable</html>", "text/html", {})]
    busy = queue(sqlite_stack, link(sqlite_stack, url, "busy"))
    down = queue(sqlite_stack, link(sqlite_stack, url, "down"))
    start = utcnow()
    assert deliver(sqlite_stack, max_tries=3) == 0
    first = {rid: row(sqlite_stack, rid) for rid in (busy, down)}
    assert {r.status for r in first.values()} == {"pending"}
    assert "HTTP 429" in first[busy].last_error and "HTTP 503" in first[down].last_error
    assert first[busy].next_attempt_at >= start + timedelta(seconds=600), "Retry-After kept"
    assert first[down].next_attempt_at >= start + timedelta(seconds=30)
    assert first[down].next_attempt_at < start + timedelta(seconds=60)
    assert deliver(sqlite_stack, max_tries=3) == 0, "not due yet"
    assert len(stub.posts) == 2
    assert deliver(sqlite_stack, max_tries=3, later=timedelta(hours=1)) == 0
    second = row(sqlite_stack, down)
    assert second.status == "pending" and second.tries == 2
    assert second.next_attempt_at - (start + timedelta(hours=1)) >= timedelta(seconds=59)
    assert deliver(sqlite_stack, max_tries=3, later=timedelta(hours=3)) == 0
    for rid, status in ((busy, "429"), (down, "503")):
        last = row(sqlite_stack, rid)
        assert (last.status, last.tries) == ("failed", 3)
        assert "gave up after 3 tries" in last.last_error and status in last.last_error
    assert deliver(sqlite_stack, max_tries=3, later=timedelta(days=2)) == 0
    assert len(stub.posts) == 6


def test_one_failing_score_never_blocks_the_others(sqlite_stack, platform) -> None:  # type: ignore[no-untyped-def]
    stub, url = platform
    stub.scripts.update(bad=[(400, "invalid grade", "text/plain", {})],
                        down=[(503, "down", "text/plain", {})], ok=[OK_TEXT])
    nowhere = f"http://127.0.0.1:{free_port()}"  # nothing listens: a network error
    with sqlite_stack.db() as session:  # the operator allows that origin for this platform
        session.scalars(select(Platform)).one().service_origins = [nowhere]
        session.commit()
    ids = {"bad": queue(sqlite_stack, link(sqlite_stack, url, "bad")),
           "down": queue(sqlite_stack, link(sqlite_stack, url, "down")),
           "gone": queue(sqlite_stack, link(sqlite_stack, nowhere, "gone")),
           "ok": queue(sqlite_stack, link(sqlite_stack, url, "ok"))}
    assert deliver(sqlite_stack) == 1
    status = {name: row(sqlite_stack, rid).status for name, rid in ids.items()}
    assert status == {"bad": "failed", "down": "pending", "gone": "pending", "ok": "delivered"}
    assert "not reachable" in row(sqlite_stack, ids["gone"]).last_error


def test_a_link_without_the_score_scope_fails_without_a_request(sqlite_stack, platform) -> None:  # type: ignore[no-untyped-def]
    stub, url = platform
    stub.scripts["ok"] = [OK_TEXT]
    rid = queue(sqlite_stack, link(sqlite_stack, url, "ok", scopes=ALL_AGS[:2]))
    assert deliver(sqlite_stack) == 0
    got = row(sqlite_stack, rid)
    assert got.status == "failed" and "score scope" in got.last_error
    assert stub.posts == [] and stub.token_scopes == []


def test_resend_posts_a_new_timestamp_that_open_edx_accepts(sqlite_stack, platform) -> None:  # type: ignore[no-untyped-def]
    stub, url = platform
    stack = sqlite_stack
    rid = queue(stack, link(stack, url, "openedx"))
    assert deliver(stack) == 1
    with stack.db() as session:  # the same timestamp again, as a plain re-post would send it
        again = session.get(ScoreOutbox, rid)
        again.status, again.next_attempt_at = "pending", utcnow()
        session.commit()
    assert deliver(stack) == 0
    assert "Score already exists" in row(stack, rid).last_error
    with stack.db() as session:
        assert requeue(session, [session.get(ScoreOutbox, rid)]) == 1
        session.commit()
    assert deliver(stack) == 1
    stamps = [p["score"]["timestamp"] for p in stub.posted("openedx")]
    assert len(stamps) == 3 and stamps[0] == stamps[1] and stamps[2] > stamps[1]
    assert row(stack, rid).status == "delivered"


def test_class_view_shows_undelivered_scores_with_the_reason_and_resend_fixes(
    sqlite_stack, platform
) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    stub, url = platform
    stub.scripts["bad"] = [(400, "User not found", "text/plain", {}), OK_TEXT]
    stub.scripts["down"] = [(503, "maintenance", "text/plain", {})]
    bad = queue(stack, link(stack, url, "bad"))
    down = queue(stack, link(stack, url, "down"))
    assert deliver(stack) == 0
    with stack.db() as session:  # the roster (NRPS) needs a token of the real LMS again
        registered = session.scalars(select(Platform)).one()
        registered.auth_token_url = stack.lms_config.url("/token")
        registered.service_origins = [url]  # the stub's line items stay allowed (operator)
        session.commit()
    teacher = stack.launch(Browser(), stack.deep_link(["arrays-04"])[0]["id"], "teacher")
    token = parse_qs(urlparse(teacher.url).query)["lt"][0]
    page = requests.get(stack.tool_url + "/instructor/class", params={"lt": token}, timeout=30)
    assert page.status_code == 200, page.text[:300]
    table = page.text.split('id="undelivered"', 1)[1].split("</table>", 1)[0]
    assert f'class="score-failed" data-outbox="{bad}"' in table
    assert f'class="score-pending" data-outbox="{down}"' in table
    assert "HTTP 400: User not found" in table and "HTTP 503: maintenance" in table
    resent = requests.post(stack.tool_url + "/instructor/resend", timeout=30,
                           data=hidden(page, "/instructor/resend"))
    assert resent.status_code == 200
    assert deliver(stack) == 1
    assert row(stack, bad).status == "delivered"
    page = requests.get(stack.tool_url + "/instructor/class", params={"lt": token}, timeout=30)
    undelivered = page.text.split('id="undelivered"', 1)[1].split("</table>", 1)[0]
    assert f'data-outbox="{bad}"' not in undelivered and f'data-outbox="{down}"' in undelivered


def test_two_consumers_never_post_one_score_twice(stack) -> None:  # type: ignore[no-untyped-def]
    """Both read the row as due while the LMS is slow to answer; only the claim holder posts
    (SQLite and PostgreSQL)."""
    with stub_platform(stack) as (stub, url):
        stub.scripts["slow"] = [OK_TEXT]
        rid = queue(stack, link(stack, url, "slow"))
        delivered: list[int] = []
        consumers = [threading.Thread(target=lambda: delivered.append(deliver(stack)))
                     for _ in range(2)]
        for consumer in consumers:
            consumer.start()
        for consumer in consumers:
            consumer.join(timeout=60)
        assert sorted(delivered) == [0, 1]
        assert len(stub.posted("slow")) == 1
        assert row(stack, rid).status == "delivered"


@pytest.mark.parametrize(("status", "outcome"), [
    (200, "delivered"), (201, "delivered"), (202, "delivered"), (204, "delivered"),
    (401, "retry"), (408, "retry"), (425, "retry"), (429, "retry"), (500, "retry"),
    (502, "retry"), (503, "retry"), (302, "retry"),
    (400, "failed"), (403, "failed"), (404, "failed"), (409, "failed"), (422, "failed"),
])
def test_judge_maps_every_answer_to_one_outcome(status: int, outcome: str) -> None:
    verdict = judge(status, "body " * 200)
    assert verdict.outcome == outcome
    if outcome == "delivered":
        assert verdict.reason == ""
    else:
        assert verdict.reason.startswith(f"LMS answered HTTP {status}: body")
        assert len(verdict.reason) <= 301
