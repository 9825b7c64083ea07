"""The class view never depends on the LMS: with the LMS down it shows the last roster the LMS
sent (with its age), or the learners the tool knows, and the delivery table from our database."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import parse_qs, urlparse

import requests
from sqlalchemy import select

from devlms.browser import Browser
from lti_service.instructor.models import RosterCache


def _class_view(stack, token: str) -> requests.Response:  # type: ignore[no-untyped-def]
    return requests.get(stack.tool_url + "/instructor/class", params={"lt": token}, timeout=60)


def test_the_class_view_works_while_the_lms_is_down(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    link = stack.deep_link(["arrays-04.checkpoint"])[0]["id"]
    alice = stack.launch(Browser(), link, "alice")
    pid = int(urlparse(alice.url).path.rstrip("/").split("/")[-1])
    lt = parse_qs(urlparse(alice.url).query)["lt"][0]
    answered = requests.post(f"{stack.tool_url}/api/placements/{pid}/checkpoint-answers",
                             json={"choice": "b"}, headers={"X-Pathways-Launch": lt},
                             timeout=30)
    assert answered.status_code == 201
    teacher = stack.launch(Browser(), link, "teacher")
    token = parse_qs(urlparse(teacher.url).query)["lt"][0]
    page = _class_view(stack, token)
    assert page.status_code == 200 and 'data-sub="alice"' in page.text
    assert 'id="roster-age"' not in page.text  # fresh from the LMS

    stack.lms_server.stop()
    with stack.db() as session:  # the cached roster is older than "fresh": the LMS is asked
        cached = session.scalars(select(RosterCache)).one()
        cached.fetched_at -= timedelta(minutes=10)
        session.commit()
    page = _class_view(stack, token)
    assert page.status_code == 200, page.text[:300]
    assert 'id="roster-age"' in page.text and "roster is not reachable" in page.text
    assert 'data-sub="alice"' in page.text and 'data-sub="bob"' in page.text  # the LMS's list
    assert 'data-delivery="pending"' in page.text  # the delivery state, from our database

    with stack.db() as session:  # never reached the LMS at all: the learners we know
        session.delete(session.scalars(select(RosterCache)).one())
        session.commit()
    page = _class_view(stack, token)
    assert page.status_code == 200, page.text[:300]
    assert "has not sent a roster yet" in page.text and 'data-sub="alice"' in page.text
