"""Exercises submitted from a lesson page (practice): the guard lets a learner submit only the
lesson's own exercises and read only their own attempts; a graded practice attempt reaches My
learning but never the gradebook; "lessons opened" is recorded per view and exported."""

from __future__ import annotations

import io
import json
import re
import uuid
import zipfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from lti_course import make_course
from sqlalchemy import func, select
from unit_launch import LEARNER, Platform, launch

from course.model import Course
from grader_worker.config import load_config
from grading_contract.queues import Queues
from lti_service import create_app
from lti_service.core.extensions import state
from lti_service.core.models import LmsUser, Placement
from lti_service.learner.models import LessonOpen
from lti_service.learner.service import portfolio
from lti_service.outbox.models import ScoreOutbox
from lti_service.submissions import service
from lti_service.submissions.models import Submission
from lti_service.submissions.panel import QUEUES_KEY
from lti_service.submissions.settings import GradingSettings

EXERCISE = "arrays-04.exercise.mask-tail"
OTHER = "arrays-05.exercise.double-it"
TOOL = "http://localhost"


def _two_lessons(root: Path) -> Course:
    """The test course with a second lesson (arrays-05) that has an exercise of its own."""
    course = make_course(root)
    (phase,) = course.phases
    (first,) = phase.lessons
    second = replace(first, id="arrays-05", slug="05-double", order=5, title="Doubling",
                     exercises=(replace(first.exercises[0], id=OTHER, slug="double-it",
                                        title="Double it"),),
                     checkpoint=replace(first.checkpoint, id="arrays-05.checkpoint"))
    return replace(course, phases=(replace(phase, lessons=(first, second)),))


@pytest.fixture
def app(migrated_sqlite: Path, tmp_path: Path) -> Iterator[Flask]:
    """The unit app (a copy of the migrated database) on the two-lesson course, with a real
    queue of its own (SQLite huey under tmp)."""
    db_file = tmp_path / "tool.sqlite3"
    db_file.write_bytes(migrated_sqlite.read_bytes())
    tool = create_app({
        "database_url": f"sqlite:///{db_file}", "var_dir": tmp_path / "var",
        "secret_key": "unit-" + uuid.uuid4().hex, "tool_base_url": TOOL,
        "outbound_allow_private": True, "course": _two_lessons(tmp_path / "content"),
    })
    tool.config["TESTING"] = True
    tool.extensions[QUEUES_KEY] = Queues(load_config({"PATHWAYS_VAR_DIR": str(tmp_path / "q")}))
    yield tool
    state(tool).engine.dispose()


def _page(client: FlaskClient, pid: int, token: str) -> str:
    page = client.get(f"/learn/{pid}", query_string={"lt": token})
    assert page.status_code == 200, page.get_data(as_text=True)[:500]
    return page.get_data(as_text=True)


def _fields(html: str, action_suffix: str) -> tuple[str, dict[str, str]]:
    """(action, hidden lt + csrf_token) of the page's form whose action ends so."""
    for form in re.findall(r"<form\b[^>]*>.*?</form>", html, re.S):
        action = re.search(r'action="([^"]+)"', form)
        if action and action[1].split("?")[0].endswith(action_suffix):
            hidden = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form))
            return action[1], {k: v for k, v in hidden.items() if k in ("lt", "csrf_token")}
    raise AssertionError(f"no form posting to {action_suffix}")


def _post(client: FlaskClient, action: str, data: dict[str, str], **kw: Any):  # type: ignore[no-untyped-def]
    return client.post(action, data=data, headers={"Origin": TOOL, **kw.pop("headers", {})},
                       **kw)


def _count(app: Flask, model: Any) -> int:
    with state(app).sessions() as session:
        return session.scalar(select(func.count()).select_from(model)) or 0


def _result(row: Submission, score: float) -> dict[str, Any]:
    return {"schema": 1, "submission_id": row.id, "attempt": row.grading_try,
            "exercise_id": row.exercise_id, "outcome": "graded", "score": score,
            "max_score": 3.0, "feedback": "checked",
            "checks": [{"name": "masked", "status": "passed", "points": score,
                        "max_points": 3.0, "feedback": "ok", "visibility": "visible"}],
            "stdout": "Original: [1. 2. 3. 4.]\n", "stderr": "", "truncated": {},
            "timings": {"queued_s": 0.0, "run_s": 0.1, "total_s": 0.1},
            "environment": {"python": "3", "jax": "0", "backend": "cpu", "device_count": 1,
                            "host": "h", "worker": "w"}}


def _grade(app: Flask, score: float) -> None:
    """Record a graded result for every queued submission, as the consumer does."""
    with state(app).sessions() as session:
        rows = list(session.scalars(select(Submission).where(Submission.status == "queued")))
        for row in rows:
            assert service.record_result(session, app.extensions[QUEUES_KEY], GradingSettings(),
                                         _result(row, score)) == "graded"


def test_a_lesson_page_submits_its_own_exercise_and_never_scores_the_gradebook(
        app: Flask, client: FlaskClient, platform: Platform) -> None:
    token, lesson_pid = launch(client, platform, sub="alice", role=LEARNER,
                               context_id="course-1", content_id="arrays-04")
    _, exercise_pid = launch(client, platform, sub="alice", role=LEARNER, context_id="course-1",
                             content_id=EXERCISE)
    html = _page(client, lesson_pid, token)
    action, fields = _fields(html, f"/exercise/{EXERCISE}/submit")
    assert set(fields) == {"lt", "csrf_token"}, "the form carries the launch and CSRF tokens"
    assert 'id="x-mask-tail-source"' in html and "masked = None" in html
    assert "not sent to your LMS gradebook" in html
    assert f"/exercise/{OTHER}/" not in html, "only this lesson's exercises have a form"

    # Refused, nothing recorded: no CSRF token, an exercise of another lesson, a made-up one.
    source = "import jax.numpy as jnp\nx = jnp.arange(4.)\nmasked = x * (jnp.arange(4) < 2)\n"
    no_csrf = _post(client, action, {"lt": fields["lt"], "source": source})
    assert no_csrf.status_code == 403
    other = _post(client, action.replace(EXERCISE, OTHER), {**fields, "source": source})
    assert other.status_code == 404
    made_up = _post(client, action.replace(EXERCISE, "arrays-04.exercise.nope"),
                    {**fields, "source": source})
    assert made_up.status_code == 404
    assert _count(app, Submission) == 0

    # Accepted (JSON for the live page), graded with full marks: practice, no outbox row.
    done = _post(client, action, {**fields, "source": source},
                 headers={"Accept": "application/json"})
    assert done.status_code == 202, done.get_data(as_text=True)[:300]
    status_url = done.get_json()["status_url"]
    _grade(app, 3.0)
    status = client.get(status_url)
    assert status.status_code == 200
    assert (status.get_json()["status"], status.get_json()["score"]) == ("graded", 3.0)
    assert status.get_json()["checks"][0]["status"] == "passed"
    assert _count(app, ScoreOutbox) == 0, "a lesson-page attempt never reaches a gradebook"
    with state(app).sessions() as session:
        placed = session.get(Placement, exercise_pid)
        row = session.scalars(select(Submission)).one()
        assert (row.placement_id, row.exercise_id, row.variant) == (lesson_pid, EXERCISE, {})
        user = session.get(LmsUser, row.user_id)
        assert service.counted(session, placed, user.id) is None
    history = client.get(action.rsplit("/", 1)[0] + "/history.json",
                         query_string={"lt": token}).get_json()
    assert [(s["attempt_number"], s["score"]) for s in history["submissions"]] == [(1, 3.0)]
    html = _page(client, lesson_pid, token)
    assert "Attempt 1: <span class=\"status status-badge\">graded</span>" in html

    # The same exercise on its own placement is graded there, and only that reaches the LMS.
    ex_token = launch(client, platform, sub="alice", role=LEARNER, context_id="course-1",
                      content_id=EXERCISE, link_id=_link_of(app, exercise_pid))[0]
    ex_html = client.get(f"/exercise/{exercise_pid}", query_string={"lt": ex_token})
    ex_action, ex_fields = _fields(ex_html.get_data(as_text=True), "/submit")
    assert _post(client, ex_action, {**ex_fields, "source": source}).status_code == 303
    _grade(app, 3.0)
    with state(app).sessions() as session:
        outbox = list(session.scalars(select(ScoreOutbox)))
        assert [(o.placement_id, o.score) for o in outbox] == [(exercise_pid, 3.0)]

    # My learning lists both: the practice attempt and the graded one, each in its own folder.
    mine = client.get(f"/learn/{lesson_pid}/my-learning", query_string={"lt": token})
    text = mine.get_data(as_text=True)
    assert f'data-content="{EXERCISE}" data-where="lesson"' in text
    assert "Mask the tail (lesson page)" in text
    assert f'data-content="{EXERCISE}" data-where="exercise"' in text
    got = client.get(f"/learn/{lesson_pid}/my-learning.zip", query_string={"lt": token})
    with zipfile.ZipFile(io.BytesIO(got.data)) as zf:
        assert zf.read(f"exercises/{EXERCISE}/on-lesson-{lesson_pid}/attempt-1/main.py"
                       ).decode() == source
        assert zf.read(f"exercises/{EXERCISE}/attempt-1/main.py").decode() == source
        index = json.loads(zf.read("index.json"))
    assert sorted(e["where"] for e in index["exercises"]) == ["exercise", "lesson"]

    # Bob cannot read alice's lesson-page attempt.
    bob, bob_pid = launch(client, platform, sub="bob", role=LEARNER, context_id="course-1",
                          content_id="arrays-04", link_id=_link_of(app, lesson_pid))
    assert bob_pid == lesson_pid
    theirs = client.get(status_url.split("?")[0], query_string={"lt": bob})
    assert theirs.status_code == 404


def _link_of(app: Flask, placement_id: int) -> str:
    with state(app).sessions() as session:
        return session.get(Placement, placement_id).resource_link_id


def test_an_exercise_placement_cannot_use_the_lesson_submit_route(
        app: Flask, client: FlaskClient, platform: Platform) -> None:
    token, pid = launch(client, platform, sub="alice", role=LEARNER, context_id="course-1",
                        content_id=EXERCISE)
    html = client.get(f"/exercise/{pid}", query_string={"lt": token}).get_data(as_text=True)
    _, fields = _fields(html, "/submit")
    refused = _post(client, f"/learn/{pid}/exercise/{EXERCISE}/submit",
                    {**fields, "source": "masked = 1\n"})
    assert refused.status_code == 404 and _count(app, Submission) == 0


def test_lessons_opened_are_recorded_listed_and_exported(
        app: Flask, client: FlaskClient, platform: Platform) -> None:
    token, pid = launch(client, platform, sub="alice", role=LEARNER, context_id="course-1",
                        content_id="arrays-04")
    _page(client, pid, token)
    with state(app).sessions() as session:
        first = session.scalars(select(LessonOpen)).one()
        assert (first.lesson_id, first.opens) == ("arrays-04", 1)
        opened_at = first.first_opened_at
    _page(client, pid, token)
    with state(app).sessions() as session:
        again = session.scalars(select(LessonOpen)).one()
        assert again.opens == 2 and again.first_opened_at == opened_at
        assert again.last_opened_at >= opened_at

    mine = client.get(f"/learn/{pid}/my-learning", query_string={"lt": token})
    text = mine.get_data(as_text=True)
    assert 'id="my-lessons"' in text and "Immutable updates and indexing" in text
    got = client.get(f"/learn/{pid}/my-learning.zip", query_string={"lt": token})
    with zipfile.ZipFile(io.BytesIO(got.data)) as zf:
        index = json.loads(zf.read("index.json"))
    (opened,) = index["lessons_opened"]
    assert (opened["lesson_id"], opened["opens"]) == ("arrays-04", 2)
    assert opened["first_opened_at"] <= opened["last_opened_at"]
    manifest, _ = portfolio.read_zip(got.data)
    assert manifest["lessons_opened"] == index["lessons_opened"]

    # The ZIP imports again (as on another course) and My learning lists those lessons too.
    action, fields = _fields(text, "/my-learning/import")
    done = client.post(action, data={**fields, "portfolio": (io.BytesIO(got.data), "p.zip")},
                       headers={"Origin": TOOL}, content_type="multipart/form-data",
                       follow_redirects=True)
    imported = done.get_data(as_text=True).split('id="imported">Imported work</h2>', 1)[1]
    assert "Immutable updates and indexing: opened 2 time(s)" in imported


def test_without_javascript_the_lesson_form_posts_back_to_the_lesson(
        app: Flask, client: FlaskClient, platform: Platform,
        monkeypatch: pytest.MonkeyPatch) -> None:
    token, pid = launch(client, platform, sub="alice", role=LEARNER, context_id="course-1",
                        content_id="arrays-04")
    action, fields = _fields(_page(client, pid, token), f"/exercise/{EXERCISE}/submit")
    refused = _post(client, action, {**fields, "source": "   \n"})
    assert refused.status_code == 400
    html = refused.get_data(as_text=True)
    errors = html.split('id="x-mask-tail-errors"', 1)[1].split("</div>", 1)[0]
    assert "main.py is empty" in errors and "hidden" not in errors.split(">", 1)[0]
    assert _count(app, Submission) == 0
    sent = _post(client, action, {**fields, "source": "masked = 1\n"})
    assert sent.status_code == 303
    assert sent.headers["Location"].split("?")[0] == f"/learn/{pid}"
    assert sent.headers["Location"].endswith(f"#{EXERCISE}")
    assert 'data-status="queued"' in _page(client, pid, token)

    # Practice is bounded per exercise (grading work), with a message that says so.
    monkeypatch.setattr("lti_service.submissions.panel.PRACTICE_ATTEMPTS", 2)
    assert _post(client, action, {**fields, "source": "masked = 2\n"}).status_code == 303
    over = _post(client, action, {**fields, "source": "masked = 3\n"})
    assert over.status_code == 400 and "used all 2 attempts" in over.get_data(as_text=True)
    assert _count(app, Submission) == 2
