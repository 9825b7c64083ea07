"""What each request on the paths a lecture hall hits together does (issues 12 and 23): a login,
a launch, the lesson page and a checkpoint answer. Counts, not timings: SQL statements, lesson
bodies rendered, Markdown texts parsed and templates rendered per request. Each number is what
the code does, so a change that adds a query or a render to these paths fails here and has to
say why in this file."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qs, urlparse

import requests
from flask import template_rendered
from sqlalchemy import event
from test_launch_rejections import claims, login, post, sign

from course.render import markdown
from devlms.browser import Browser
from lti_service.core.extensions import state
from lti_service.learner.service import page as lesson_page

# login: platform, nonce upsert, state upsert (no tool key read, no housekeeping DELETEs).
# launch: nonce check, platform, key-set cache, deployment, user, course+placement (one query),
#   nonce insert, + the user insert on a first launch.
# page (the lesson page this checkpoint launch opens): user+course+placement (one query), the
#   "lesson opened" upsert (one statement), checkpoint attempts.
# lesson_page (a lesson placement's, with its exercises' submit forms): the same, plus the
#   learner's submissions there (one query for all the lesson's exercises).
# answer: user+course+placement with the learner's earlier attempts there (one query: the
#   guard reads the rows its rule names, ``authz.Rows``; was two), then the attempt and its
#   score: on PostgreSQL one statement (a data-modifying CTE; was two), on SQLite two INSERTs
#   (in-process, no round trip to save; SQLite has no INSERT inside WITH). Issue 23: 4 -> 2.
# Exact counts: one fewer is as much news as one more (update the number and say why here).
BUDGET = {"login": 3, "launch": 7, "page": 3, "lesson_page": 4, "answer": 2}
ANSWER_INSERTS = {"postgresql": 1, "sqlite": 2}

# Templates per response once the course and the placement have been opened (issue 23): the
# login and launch answer with redirects, the answer with JSON; a page renders its layout once
# and, on a lesson placement, each exercise's submit panel. No lesson body and no Markdown text
# is rendered for a learner after the first one: the body is shared, the checkpoint's texts are
# cached (a learner's own choice order is assembled from them).
# A checkpoint placement opens its own page (issue 24), not the whole lesson.
TEMPLATES = {"login": [], "launch": [], "page": ["checkpoint.html"], "answer": [],
             "lesson_page": ["submissions/_panel.html", "lesson.html"]}


class Renders:
    """Lesson bodies rendered, Markdown texts parsed and templates rendered during a block."""

    def __init__(self, app: Any) -> None:
        self.app, self.templates = app, []
        self.bodies = self.markdown = 0

    def _seen(self, _app: Any, template: Any, **_: Any) -> None:
        self.templates.append(template.name)

    def __enter__(self) -> Renders:
        self._start = (lesson_page.body_renders(), markdown.renders())
        template_rendered.connect(self._seen, self.app)
        return self

    def __exit__(self, *_: Any) -> None:
        template_rendered.disconnect(self._seen, self.app)
        self.bodies = lesson_page.body_renders() - self._start[0]
        self.markdown = markdown.renders() - self._start[1]


@contextmanager
def _seen(stack, name: str, note: Any) -> Iterator[list[Any]]:  # type: ignore[no-untyped-def]
    """What ``note(*event args)`` says of each ``name`` event of the tool's engine in a block."""
    seen: list[Any] = []
    engine = state(stack.tool).engine

    def record(*args: Any) -> None:
        seen.append(note(*args))

    event.listen(engine, name, record)
    try:
        yield seen
    finally:
        event.remove(engine, name, record)


def statements(stack):  # type: ignore[no-untyped-def]
    """The SQL statements run in a block, folded and cut."""
    return _seen(stack, "before_cursor_execute",
                 lambda _conn, _cursor, statement, *_: " ".join(statement.split())[:90])


def checkouts(stack):  # type: ignore[no-untyped-def]
    """Connections taken from the pool in a block: each one is a ping, a BEGIN and a COMMIT or
    ROLLBACK on PostgreSQL besides its statements."""
    return _seen(stack, "checkout", lambda *_: 1)


def test_login_launch_and_answer_stay_within_their_statements(stack) -> None:  # type: ignore[no-untyped-def]
    # Two first learners make what a lecture hall then shares: the tool key (made at the first
    # login, seen at the second), the cached key set, the course and the placement.
    # Each opens the lesson page, so its body and texts are warm.
    for n in range(2):
        browser = Browser()
        nonce, state_ = login(stack, browser)
        body = claims(stack, nonce)
        body["sub"] = f"warm-learner-{n}"
        r = post(stack, browser, sign(stack, body), state_)
        assert r.status_code == 302
        assert browser.get(stack.tool_url + r.headers["Location"]).status_code == 200

    browser, renders = Browser(), {}
    with statements(stack) as at_login, Renders(stack.tool) as renders["login"]:
        nonce, state_ = login(stack, browser)
    body = claims(stack, nonce)
    body["sub"] = "second-learner"
    with statements(stack) as at_launch, Renders(stack.tool) as renders["launch"]:
        r = post(stack, browser, sign(stack, body), state_)
    assert r.status_code == 302, r.text[:300]
    location = urlparse(r.headers["Location"])
    token = parse_qs(location.query)["lt"][0]
    with statements(stack) as at_page, checkouts(stack) as page_checkouts, \
            Renders(stack.tool) as renders["page"]:
        page = browser.get(stack.tool_url + r.headers["Location"]
                           if r.headers["Location"].startswith("/") else r.headers["Location"])
    assert page.status_code == 200, page.text[:300]
    placement = location.path.rstrip("/").split("/")[-1]
    with statements(stack) as at_answer, checkouts(stack) as answer_checkouts, \
            Renders(stack.tool) as renders["answer"]:
        answer = requests.post(f"{stack.tool_url}/api/placements/{placement}/checkpoint-answers",
                               json={"choice": "a"}, headers={"X-Pathways-Launch": token},
                               timeout=30)
    assert answer.status_code == 201, answer.text[:300]

    assert not [s for s in at_login if s.startswith("DELETE")], at_login
    assert len(at_login) == BUDGET["login"], at_login
    assert len([s for s in at_launch if not s.startswith("INSERT INTO lms_users")]) \
        == BUDGET["launch"], at_launch
    dialect = state(stack.tool).engine.dialect.name
    assert len(at_answer) == BUDGET["answer"] - 1 + ANSWER_INSERTS[dialect], at_answer
    assert len([s for s in at_page if s.startswith("INSERT INTO lesson_opens")]) == 1, at_page
    assert len(at_page) == BUDGET["page"], at_page

    # A lesson placement's page, with its exercise's submit form (a reload: the upsert updates).
    (lesson,) = stack.deep_link(["arrays-04"])
    page = stack.launch(browser, lesson["id"], "bob")
    assert "/exercise/arrays-04.exercise.mask-tail/submit" in page.text
    with statements(stack) as at_lesson_page, checkouts(stack) as lesson_checkouts, \
            Renders(stack.tool) as renders["lesson_page"]:
        assert browser.get(page.url).status_code == 200
    assert len(at_lesson_page) == BUDGET["lesson_page"], at_lesson_page
    # One transaction a page and an answer: the lesson-opened upsert commits with the page's
    # reads (it committed first, and the reads took a second connection).
    assert (len(page_checkouts), len(lesson_checkouts), len(answer_checkouts)) == (1, 1, 1)

    for step, seen in renders.items():
        assert (step, seen.bodies, seen.markdown) == (step, 0, 0)
        assert seen.templates == TEMPLATES[step], (step, seen.templates)

