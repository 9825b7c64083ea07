"""SQL statements per request on the paths a lecture hall hits together (issue 12): a login, a
launch and a checkpoint answer. Counts, not timings: each number is what the code does, so a
change that adds a query to these paths fails here and has to say why in this file."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qs, urlparse

import requests
from sqlalchemy import event
from test_launch_rejections import claims, login, post, sign

from devlms.browser import Browser
from lti_service.core.extensions import state

# login: platform, nonce upsert, state upsert (no tool key read, no housekeeping DELETEs).
# launch: nonce check, platform, key-set cache, deployment, user, course+placement (one query),
#   nonce insert, + the user insert on a first launch.
# page (the lesson page this checkpoint launch opens): user+course+placement (one query), the
#   "lesson opened" upsert (one statement), checkpoint attempts.
# lesson_page (a lesson placement's, with its exercises' submit forms): the same, plus the
#   learner's submissions there (one query for all the lesson's exercises).
# answer: user+course+placement (one query), attempts, attempt insert, outbox insert.
BUDGET = {"login": 3, "launch": 7, "page": 3, "lesson_page": 4, "answer": 4}


@contextmanager
def statements(stack) -> Iterator[list[str]]:  # type: ignore[no-untyped-def]
    seen: list[str] = []
    engine = state(stack.tool).engine

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        seen.append(" ".join(statement.split())[:90])

    event.listen(engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", count)


def test_login_launch_and_answer_stay_within_their_statements(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    # Two first learners make what a lecture hall then shares: the tool key (made at the first
    # login, seen at the second), the cached key set, the course and the placement.
    for _ in range(2):
        browser = Browser()
        nonce, state_ = login(stack, browser)
        assert post(stack, browser, sign(stack, claims(stack, nonce)), state_).status_code == 302

    browser = Browser()
    with statements(stack) as at_login:
        nonce, state_ = login(stack, browser)
    body = claims(stack, nonce)
    body["sub"] = "second-learner"
    with statements(stack) as at_launch:
        r = post(stack, browser, sign(stack, body), state_)
    assert r.status_code == 302, r.text[:300]
    location = urlparse(r.headers["Location"])
    token = parse_qs(location.query)["lt"][0]
    with statements(stack) as at_page:
        page = browser.get(stack.tool_url + r.headers["Location"]
                           if r.headers["Location"].startswith("/") else r.headers["Location"])
    assert page.status_code == 200, page.text[:300]
    placement = location.path.rstrip("/").split("/")[-1]
    with statements(stack) as at_answer:
        answer = requests.post(f"{stack.tool_url}/api/placements/{placement}/checkpoint-answers",
                               json={"choice": "a"}, headers={"X-Pathways-Launch": token},
                               timeout=30)
    assert answer.status_code == 201, answer.text[:300]

    assert not [s for s in at_login if s.startswith("DELETE")], at_login
    assert len(at_login) <= BUDGET["login"], at_login
    assert len([s for s in at_launch if not s.startswith("INSERT INTO lms_users")]) \
        <= BUDGET["launch"], at_launch
    assert len(at_answer) <= BUDGET["answer"], at_answer
    assert len([s for s in at_page if s.startswith("INSERT INTO lesson_opens")]) == 1, at_page
    assert len(at_page) <= BUDGET["page"], at_page

    # A lesson placement's page, with its exercise's submit form (a reload: the upsert updates).
    (lesson,) = stack.deep_link(["arrays-04"])
    page = stack.launch(browser, lesson["id"], "bob")
    assert "/exercise/arrays-04.exercise.mask-tail/submit" in page.text
    with statements(stack) as at_lesson_page:
        assert browser.get(page.url).status_code == 200
    assert len(at_lesson_page) <= BUDGET["lesson_page"], at_lesson_page

