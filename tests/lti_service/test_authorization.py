"""The guard's rules, driven through devlms launches and launches we sign as the platform.

A learner acts only on the placement she launched and only with the endpoint of its kind; an
instructor reads only their own LMS course; a learner never reads another learner's
submission. Every refusal is a 4xx and leaves everything recorded as it was; each test also
shows the same request allowed where the rule allows it, so the refusals are the guard's doing.
"""

from __future__ import annotations

import uuid
from typing import Any

import requests
import signed_launch
from flask import Blueprint, Flask
from sqlalchemy import select
from tool_pages import CHECKPOINT, EXERCISE, recorded
from tool_pages import api as _api
from tool_pages import hidden as _hidden
from tool_pages import placement_id as _placement_id
from tool_pages import token as _token

from devlms.browser import Browser
from lti_service.core.authz import RULE_ATTR, Guard
from lti_service.core.models import LmsUser, utcnow
from lti_service.submissions.models import Submission


def _launch(stack: Any, link: dict[str, Any], user: str) -> requests.Response:
    page = stack.launch(Browser(), link["id"], user)
    assert page.status_code == 200, page.text[:400]
    return page


def test_a_learner_answers_only_the_placement_she_launched(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    mine, other = stack.deep_link([CHECKPOINT, CHECKPOINT])
    alice_page = _launch(stack, mine, "alice")
    alice, a_pid = _token(alice_page), _placement_id(alice_page)
    # The teacher opens the other checkpoint: its placement exists, but alice never got it.
    b_pid = _placement_id(_launch(stack, other, "teacher"))
    before = recorded(stack)

    api = _api(stack, "POST", f"/api/placements/{b_pid}/checkpoint-answers", alice,
               json={"choice": "a"})
    assert api.status_code == 403 and "not the activity you launched" in api.json()["error"]
    form = requests.post(f"{stack.tool_url}/learn/{b_pid}/answer", timeout=30,
                         data={**_hidden(alice_page, "/answer"), "choice": "a"})
    assert form.status_code == 403, form.text[:300]
    for path in (f"/learn/{b_pid}", f"/learn/{b_pid}/figure.png"):
        assert requests.get(stack.tool_url + path, params={"lt": alice},
                            timeout=30).status_code == 403, path
    assert _api(stack, "GET", f"/api/placements/{b_pid}/my-attempts", alice).status_code == 403
    assert recorded(stack) == before

    # The same token, on the placement it was issued for, is accepted.
    ok = _api(stack, "POST", f"/api/placements/{a_pid}/checkpoint-answers", alice,
              json={"choice": "a"})
    assert ok.status_code == 201, ok.text
    assert recorded(stack)["attempts"] == before["attempts"] + 1


def test_each_endpoint_serves_only_placements_of_its_kind(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    checkpoint, exercise = stack.deep_link([CHECKPOINT, EXERCISE])
    cp_page = _launch(stack, checkpoint, "alice")
    ex_page = _launch(stack, exercise, "alice")
    cp_token, cp_pid = _token(cp_page), _placement_id(cp_page)
    ex_token, ex_pid = _token(ex_page), _placement_id(ex_page)
    teacher = _token(_launch(stack, checkpoint, "teacher"))
    before = recorded(stack)

    # A checkpoint answer to the exercise's placement (its line item is the exercise's score).
    for token in (ex_token, teacher):
        r = _api(stack, "POST", f"/api/placements/{ex_pid}/checkpoint-answers", token,
                 json={"choice": "a"})
        assert r.status_code == 404 and "exercise" in r.json()["error"], r.text
    lesson_page = requests.get(f"{stack.tool_url}/learn/{ex_pid}", params={"lt": ex_token},
                               timeout=30)
    assert lesson_page.status_code == 200 and "graded by its exercise" in lesson_page.text
    r = requests.post(f"{stack.tool_url}/learn/{ex_pid}/answer", timeout=30,
                      data={**_hidden(lesson_page, "/answer"), "choice": "a"})
    assert r.status_code == 404, r.text[:300]

    # A submission to the checkpoint's placement, with the checkpoint launch's own tokens.
    r = requests.post(f"{stack.tool_url}/exercise/{cp_pid}/submit", timeout=30,
                      data={**_hidden(cp_page, "/answer"), "source": "masked = x\n"})
    assert r.status_code == 404, r.text[:300]
    # The checkpoint launch's token does not reach the exercise placement either.
    r = requests.get(f"{stack.tool_url}/exercise/{ex_pid}/history.json", params={"lt": cp_token},
                     timeout=30)
    assert r.status_code == 403
    assert recorded(stack) == before

    r = _api(stack, "POST", f"/api/placements/{cp_pid}/checkpoint-answers", cp_token,
             json={"choice": "b"})
    assert r.status_code == 201, r.text


def _alice_submission(stack: Any, placement_id: int) -> str:
    """A graded submission row of alice's (the grading path itself is test_submissions')."""
    with stack.db() as session:
        user_id = session.scalar(select(LmsUser.id).where(LmsUser.sub == "alice"))
        row = Submission(id=str(uuid.uuid4()), placement_id=placement_id, user_id=user_id,
                         exercise_id=EXERCISE, attempt_number=1, source="masked = x\n",
                         source_sha256="0" * 64, status="graded", score=1.0, max_score=3.0,
                         created_at=utcnow())
        session.add(row)
        session.commit()
        return row.id


def test_an_instructor_reads_only_their_own_course(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    exercise = stack.deep_link([EXERCISE])[0]
    pid = _placement_id(_launch(stack, exercise, "alice"))
    sid = _alice_submission(stack, pid)
    other_teacher, _ = signed_launch.launch(
        stack, sub="teacher2", role=signed_launch.INSTRUCTOR, context_id="course-2",
        content_id=CHECKPOINT)
    before = recorded(stack)

    for path in (f"/submissions/{sid}/status.json", f"/exercise/{pid}/history.json",
                 f"/exercise/{pid}", f"/learn/{pid}"):
        r = requests.get(stack.tool_url + path, params={"lt": other_teacher}, timeout=30)
        assert r.status_code == 404, (path, r.status_code)
        assert "alice" not in r.text and "masked" not in r.text
    r = _api(stack, "PATCH", f"/api/placements/{pid}/policy", other_teacher,
             json={"max_attempts": 50})
    assert r.status_code == 404, r.text
    assert recorded(stack) == before

    # The course's own instructor reads the same submission and may change the policy.
    teacher = _token(_launch(stack, exercise, "teacher"))
    r = requests.get(f"{stack.tool_url}/submissions/{sid}/status.json", params={"lt": teacher},
                     timeout=30)
    assert r.status_code == 200 and r.json()["score"] == 1.0
    r = _api(stack, "PATCH", f"/api/placements/{pid}/policy", teacher, json={"max_attempts": 5})
    assert r.status_code == 200 and r.json()["max_attempts"] == 5


def test_a_learner_never_reads_another_learners_submission(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    exercise = stack.deep_link([EXERCISE])[0]
    alice_page = _launch(stack, exercise, "alice")
    pid = _placement_id(alice_page)
    sid = _alice_submission(stack, pid)
    bob = _token(_launch(stack, exercise, "bob"))

    r = requests.get(f"{stack.tool_url}/submissions/{sid}/status.json", params={"lt": bob},
                     timeout=30)
    assert r.status_code == 404 and "masked" not in r.text
    history = requests.get(f"{stack.tool_url}/exercise/{pid}/history.json", params={"lt": bob},
                           timeout=30).json()
    assert history["submissions"] == []
    mine = requests.get(f"{stack.tool_url}/submissions/{sid}/status.json",
                        params={"lt": _token(alice_page)}, timeout=30)
    assert mine.status_code == 200 and mine.json()["id"] == sid


def test_every_view_of_a_guarded_blueprint_has_a_rule(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    app = sqlite_stack.tool
    guarded = {"learner", "instructor", "api", "submissions"}
    views = {name: fn for name, fn in app.view_functions.items()
             if name.split(".")[0] in guarded}
    assert len(views) >= 12, sorted(views)
    assert [n for n, fn in views.items() if getattr(fn, RULE_ATTR, None) is None] == []
    assert getattr(app.view_functions["lti.deep_link_response"], RULE_ATTR, None) is not None


def test_a_view_without_a_rule_is_refused() -> None:
    bp = Blueprint("open", __name__)
    Guard(bp, source="page")

    @bp.get("/forgotten")
    def forgotten() -> str:
        return "reachable"

    app = Flask(__name__)
    app.register_blueprint(bp)
    assert app.test_client().get("/forgotten").status_code == 403
