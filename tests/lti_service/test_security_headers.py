"""A Content-Security-Policy and ``nosniff`` on every answer, and no inline script anywhere
(issue 25, item 5).

Every GET route of the real app is opened (as a learner and as an instructor, with real
launches); each answer, errors included, carries ``script-src 'self'``, ``frame-ancestors``
naming the tool and the registered platform's origin, and ``X-Content-Type-Options: nosniff``.
Every HTML answer and every template holds no inline script (JSON data blocks aside) and no
``on...=`` handler, so the policy breaks nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

from flask import Flask, url_for
from flask.testing import FlaskClient
from tool_pages import CHECKPOINT, EXERCISE
from unit_launch import INSTRUCTOR, LEARNER, Platform, launch

import lti_service
from lti_service.core import headers

INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>",
                           re.I)
HANDLER = re.compile(r"<[a-z][^>]*\son[a-z]+\s*=", re.I)
TEMPLATES = Path(lti_service.__file__).parent


def _assert_headers(answer, platform: Platform, what: str) -> None:  # type: ignore[no-untyped-def]
    csp = answer.headers.get("Content-Security-Policy", "")
    directives = dict((d.strip().split(" ", 1) + [""])[:2] for d in csp.split(";") if d.strip())
    assert directives.get("script-src") == "'self'", (what, csp)
    assert directives.get("object-src") == "'none'" and directives.get("base-uri") == "'none'"
    ancestors = directives.get("frame-ancestors", "").split()
    assert ancestors[0] == "'self'" and platform.issuer in ancestors, (what, csp)
    assert "*" not in ancestors
    assert answer.headers.get("X-Content-Type-Options") == "nosniff", what
    assert answer.headers.get("Referrer-Policy") == "same-origin", what


def _assert_no_inline_script(html: str, what: str) -> None:
    assert not INLINE_SCRIPT.search(html), (what, INLINE_SCRIPT.search(html))
    assert not HANDLER.search(html), (what, HANDLER.search(html))


def test_every_route_answers_with_the_policy_and_nosniff(app: Flask, client: FlaskClient,
                                                          platform: Platform) -> None:
    common = {"sub": "alice", "role": LEARNER, "context_id": "course-1"}
    lesson_token, lesson = launch(client, platform, content_id="arrays-04", **common)
    exercise_token, exercise = launch(client, platform, content_id=EXERCISE, **common)
    check_token, checkpoint = launch(client, platform, content_id=CHECKPOINT, **common)
    teacher_token, _ = launch(client, platform, sub="terry", role=INSTRUCTOR,
                              context_id="course-1", content_id="arrays-04")
    placement = {"learner": (lesson, lesson_token), "submissions": (exercise, exercise_token),
                 "api": (checkpoint, check_token), "instructor": (lesson, teacher_token)}
    seen = set()
    for rule in app.url_map.iter_rules():
        if "GET" not in (rule.methods or ()):
            continue
        blueprint = rule.endpoint.split(".", 1)[0]
        pid, token = placement.get(blueprint, (lesson, lesson_token))
        values = {"placement_id": pid, "exercise_id": EXERCISE, "submission_id": "no-such-id",
                  "filename": "auto_submit.js", "import_id": "999", "name": "main.py",
                  "learner": f"{pid}.1", "run_id": "no-such-id"}
        with app.test_request_context():
            url = url_for(rule.endpoint, **{name: values[name] for name in rule.arguments})
        answer = client.get(url, query_string={"lt": token},
                            headers={"Authorization": f"Bearer {token}"}
                            if blueprint == "api" else {})
        _assert_headers(answer, platform, f"{rule.endpoint} {url} -> {answer.status_code}")
        if answer.mimetype == "text/html":
            _assert_no_inline_script(answer.get_data(as_text=True), rule.endpoint)
        answer.close()
        seen.add(rule.endpoint)
    assert {"learner.lesson", "learner.my_learning", "submissions.exercise_page",
            "instructor.picker", "instructor.class_view", "instructor.desk_view",
            "instructor.desk_learner", "submissions.run_status", "lti.jwks", "static"} <= seen
    # Errors carry them too: no launch (401), an unknown page (404).
    _assert_headers(client.get("/learn/1"), platform, "401")
    _assert_headers(client.get("/no/such/page"), platform, "404")


def test_no_template_holds_an_inline_script_or_handler() -> None:
    templates = sorted(TEMPLATES.rglob("*.html"))
    assert len(templates) >= 10
    for path in templates:
        _assert_no_inline_script(path.read_text(), str(path))


def test_the_policy_names_only_origins() -> None:
    assert headers._origin("https://lms.example.edu/path?q=1") == "https://lms.example.edu"
    assert headers._origin("http://[::1]:8080/x") == "http://[::1]:8080"
    for bad in ("javascript:alert(1)", "https://a b/", "data:text/html,x", ""):
        assert headers._origin(bad) is None, bad
