"""Who reaches what: a learner sees only their own data and no instructor page; the API
refuses bad bodies with field messages and records nothing; the instructor's class view."""

from __future__ import annotations

import csv
import io
import uuid
from urllib.parse import parse_qs, urlparse

import requests
from sqlalchemy import func, select

from devlms.browser import Browser, forms
from lti_service.checkpoints.models import CheckpointAttempt
from lti_service.core.models import Base, LmsUser, Placement, utcnow
from lti_service.outbox.models import ScoreOutbox
from lti_service.outbox.service.delivery import deliver_due


def _token(page: requests.Response) -> str:
    return parse_qs(urlparse(page.url).query)["lt"][0]


def _placement_id(page: requests.Response) -> int:
    return int(urlparse(page.url).path.rstrip("/").split("/")[-1])


def _attempt_count(stack) -> int:  # type: ignore[no-untyped-def]
    with stack.db() as session:
        return session.scalar(select(func.count()).select_from(CheckpointAttempt))


def _api(stack, method: str, path: str, token: str | None, **kw):  # type: ignore[no-untyped-def]
    headers = {"X-Pathways-Launch": token} if token else {}
    headers.update(kw.pop("headers", {}))
    return requests.request(method, stack.tool_url + path, headers=headers, timeout=30, **kw)


def test_learners_are_kept_apart_and_out_of_instructor_pages(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    link = stack.deep_link(["arrays-04.checkpoint"])[0]
    alice_page = stack.launch(Browser(), link["id"], "alice")
    bob_page = stack.launch(Browser(), link["id"], "bob")
    alice, bob, pid = _token(alice_page), _token(bob_page), _placement_id(alice_page)
    made = _api(stack, "POST", f"/api/placements/{pid}/checkpoint-answers", alice,
                json={"choice": "b"})
    assert made.status_code == 201, made.text
    assert made.json()["attempt_number"] == 1 and made.json()["correct"] is False

    mine = _api(stack, "GET", f"/api/placements/{pid}/my-attempts", alice).json()
    theirs = _api(stack, "GET", f"/api/placements/{pid}/my-attempts", bob).json()
    assert [a["choice"] for a in mine["attempts"]] == ["b"]
    assert theirs["attempts"] == []
    bob_html = requests.get(f"{stack.tool_url}/learn/{pid}", params={"lt": bob}, timeout=30)
    assert "Checkpoint attempts: 0 of 3" in bob_html.text

    for method, path in [("GET", "/instructor/class"), ("GET", "/instructor/class.csv"),
                         ("GET", "/instructor/picker"), ("POST", "/instructor/resend"),
                         ("POST", "/lti/deep-link")]:
        r = _api(stack, method, path, bob)
        assert r.status_code == 403, (path, r.status_code)
    r = _api(stack, "PATCH", f"/api/placements/{pid}/policy", bob, json={"max_attempts": 9})
    assert r.status_code == 403 and "instructors" in r.json()["error"]

    forged = alice[:-4] + ("AAAA" if not alice.endswith("AAAA") else "BBBB")
    assert _api(stack, "GET", f"/api/placements/{pid}/my-attempts", forged).status_code == 401
    assert _api(stack, "GET", f"/api/placements/{pid}/my-attempts", None).status_code == 401
    assert _api(stack, "GET", "/api/placements/99999/my-attempts", alice).status_code == 404
    assert _attempt_count(stack) == 1


def test_api_rejects_bad_bodies_with_field_messages(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    link = stack.deep_link(["arrays-04.checkpoint"])[0]
    page = stack.launch(Browser(), link["id"], "alice")
    token, pid = _token(page), _placement_id(page)
    url = f"/api/placements/{pid}/checkpoint-answers"
    cases = [
        ({}, 422, "choice"),
        ({"choice": 5}, 422, "choice"),
        ({"choice": "a", "extra": 1}, 422, "extra"),
        ({"choice": "z"}, 400, "choice"),
    ]
    for body, status, field in cases:
        r = _api(stack, "POST", url, token, json=body)
        assert r.status_code == status, (body, r.text)
        assert field in r.json()["fields"], (body, r.json())
        assert r.json()["error"]
    r = _api(stack, "POST", url, token, data="not json", headers={"Content-Type": "text/plain"})
    assert r.status_code == 400 and "JSON" in r.json()["error"]
    r = _api(stack, "POST", url, token, json={"choice": "x" * 50})
    assert r.status_code == 422
    assert _attempt_count(stack) == 0
    with stack.db() as session:
        assert session.scalar(select(func.count()).select_from(ScoreOutbox)) == 0


def test_first_last_best_counting(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    expected = {"first": 0.0, "last": 0.0, "best": 1.0}
    for counting, score in expected.items():
        link = stack.deep_link(["arrays-04.checkpoint"], counting=counting, max_attempts=3)[0]
        page = stack.launch(Browser(), link["id"], "alice")
        token, pid = _token(page), _placement_id(page)
        results = [_api(stack, "POST", f"/api/placements/{pid}/checkpoint-answers", token,
                        json={"choice": c}).json() for c in ("b", "a", "c")]
        assert [r["attempt_number"] for r in results] == [1, 2, 3]
        assert results[-1]["counted_score"] == score, counting
        assert results[-1]["attempts_left"] == 0
    with stack.db() as session:
        # One post per learner and placement: the newest score supersedes the older ones.
        assert deliver_due(session, rules=stack.rules) == 3
        by_content = {p.id: p.counting for p in session.scalars(select(Placement))}
    scores = {(s["lineitem"]): s["scoreGiven"] for s in stack.gradebook()["scores"]}
    got = {}
    for link in stack.lms_store.links.values():
        with stack.db() as session:
            p = session.scalar(select(Placement).where(Placement.resource_link_id == link.id))
        got[by_content[p.id]] = scores[link.lineitem_id]
    assert got == expected


def test_class_view_roster_distribution_csv_and_resend(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    link = stack.deep_link(["arrays-04.checkpoint"])[0]
    for user, choice in (("alice", "a"), ("bob", "b")):
        page = stack.launch(Browser(), link["id"], user)
        r = _api(stack, "POST", f"/api/placements/{_placement_id(page)}/checkpoint-answers",
                 _token(page), json={"choice": choice})
        assert r.status_code == 201
    teacher = Browser()
    teacher_page = stack.launch(teacher, link["id"], "teacher")
    token = _token(teacher_page)
    view = requests.get(stack.tool_url + "/instructor/class", params={"lt": token}, timeout=30)
    assert view.status_code == 200, view.text[:400]
    assert 'data-sub="alice"' in view.text and 'data-sub="bob"' in view.text
    assert 'data-sub="teacher"' not in view.text
    assert 'data-key="a" data-count="1"' in view.text
    assert 'data-key="b" data-count="1"' in view.text
    assert 'data-key="c" data-count="0"' in view.text
    assert stack.lms_store.token_requests == 1, "the roster came through NRPS with a token"
    assert "submission #" not in view.text

    exercise = stack.deep_link(["arrays-04.exercise.mask-tail"])[0]
    stack.launch(Browser(), exercise["id"], "alice")
    table = Base.metadata.tables.get("submissions")
    if table is not None:  # the grading part is installed: its submissions join the view
        with stack.db() as session:
            pid = session.scalar(select(Placement.id).where(
                Placement.resource_link_id == exercise["id"]))
            uid = session.scalar(select(LmsUser.id).where(LmsUser.sub == "alice"))
            session.execute(table.insert().values(
                id=str(uuid.uuid4()), placement_id=pid, user_id=uid,
                exercise_id="arrays-04.exercise.mask-tail", attempt_number=1, source="x = 1\n",
                source_sha256="0" * 64, status="graded", score=2.0, max_score=3.0,
                created_at=utcnow()))
            session.commit()
        view = requests.get(stack.tool_url + "/instructor/class", params={"lt": token},
                            timeout=30)
        assert "submission #1 graded 2.0/3.0" in view.text

    export = requests.get(stack.tool_url + "/instructor/class.csv", params={"lt": token},
                          timeout=30)
    rows = list(csv.DictReader(io.StringIO(export.text)))
    assert {(r["user_id"], r["choice"], r["correct"]) for r in rows} == {("alice", "a", "1"),
                                                                         ("bob", "b", "0")}
    with stack.db() as session:
        assert deliver_due(session, rules=stack.rules) == 2
    posts = len(stack.lms_store.score_posts)
    resend_form = next(f for f in forms(view.text)[0] if f.action.endswith("/instructor/resend"))
    resent = teacher.submit(view, resend_form)
    assert resent.status_code == 200
    with stack.db() as session:
        assert deliver_due(session, rules=stack.rules) == 2
    assert len(stack.lms_store.score_posts) == posts + 2
