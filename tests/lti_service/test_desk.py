"""The grading desk and a fair attempt policy (issue 24), through the unit app: code attempts
are their own policy (unlimited by default, or N) with the sentence shown before submitting,
host failures are never charged, an instructor gives attempts back, extensions and a manual
score with a reason (through the outbox, shown to the learner), the desk lists the whole
roster by name, and the guard keeps learners and other courses out."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select
from unit_launch import INSTRUCTOR, LEARNER, Platform, launch

from grader_worker.config import load_config
from grading_contract.queues import Queues
from lti_service.core.extensions import state
from lti_service.core.models import LmsUser, Placement, utcnow
from lti_service.instructor.models import RosterCache
from lti_service.outbox.models import ScoreOutbox
from lti_service.submissions import attempts, service
from lti_service.submissions.models import ManualScore, Submission
from lti_service.submissions.panel import QUEUES_KEY
from lti_service.submissions.settings import GradingSettings

EXERCISE = "arrays-04.exercise.mask-tail"
TOOL = "http://localhost"
SETTINGS = GradingSettings(max_tries=2)


@pytest.fixture
def queued(app: Flask, tmp_path: Path) -> Queues:
    queues = Queues(load_config({"PATHWAYS_VAR_DIR": str(tmp_path / "q")}))
    app.extensions[QUEUES_KEY] = queues
    return queues


def _result(row: Submission, outcome: str = "graded", score: float = 3.0) -> dict[str, Any]:
    return {"schema": 1, "submission_id": row.id, "attempt": row.grading_try,
            "exercise_id": row.exercise_id, "outcome": outcome,
            "score": score if outcome == "graded" else 0.0, "max_score": 3.0,
            "feedback": "ran out of host time: Traceback (most recent call last) KeyError",
            "checks": [{"name": "masked holds the tail", "status": "passed", "points": score,
                        "max_points": 3.0, "feedback": "", "visibility": "visible"},
                       {"name": "secret input [7, 7]", "status": "failed", "points": 0,
                        "max_points": 0, "feedback": "expected 42", "visibility": "hidden"}]
            if outcome == "graded" else [],
            "stdout": "masked: [1. 2. 0. 0.]\n", "stderr": "", "truncated": {},
            "timings": {"queued_s": 0.5, "run_s": 1.25, "total_s": 2.0},
            "environment": {"python": "3", "jax": "0", "backend": "cpu", "device_count": 1,
                            "host": "h", "worker": "w"}}


def _fields(html: str, action_suffix: str) -> tuple[str, dict[str, str]]:
    for form in re.findall(r"<form\b[^>]*>.*?</form>", html, re.S):
        action = re.search(r'action="([^"]+)"', form)
        if action and action[1].split("?")[0].endswith(action_suffix):
            return action[1], dict(re.findall(
                r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form))
    raise AssertionError(f"no form posting to {action_suffix}")


def _post(client: FlaskClient, action: str, data: dict[str, str]):  # type: ignore[no-untyped-def]
    return client.post(action, data=data, headers={"Origin": TOOL})


def _submit(app: Flask, queues: Queues, pid: int, sub: str, text: str = "masked = 1\n") -> None:
    with state(app).sessions() as session:
        placement = session.get(Placement, pid)
        user = session.scalar(select(LmsUser).where(LmsUser.sub == sub))
        service.submit(session, queues, SETTINGS, placement=placement, user=user,
                       exercise_id=EXERCISE, source=text)


def _record(app: Flask, queues: Queues, outcome: str = "graded", score: float = 3.0) -> list[str]:
    with state(app).sessions() as session:
        rows = list(session.scalars(select(Submission).where(Submission.status == "queued")))
        return [service.record_result(session, queues, SETTINGS, _result(r, outcome, score))
                for r in rows]


def test_code_attempts_are_their_own_policy_and_host_failures_never_count(
        app: Flask, client: FlaskClient, platform: Platform, queued: Queues) -> None:
    token, pid = launch(client, platform, sub="alice", role=LEARNER, context_id="course-1",
                        content_id=EXERCISE)
    with state(app).sessions() as session:
        placement = session.get(Placement, pid)
        assert placement.code_attempts is None, "unlimited by default"
        assert placement.max_attempts == 3, "the checkpoint policy is another one"
        placement.code_attempts = 2
        session.commit()
    page = client.get(f"/exercise/{pid}", query_string={"lt": token}).get_data(as_text=True)
    assert "Next: attempt 1 of 2, the best counts" in page
    assert "Run (not graded)" in page

    # A host timeout is retried; after the last try the attempt is "could not be graded" and
    # is not charged: the learner still has both attempts.
    _submit(app, queued, pid, "alice")
    assert _record(app, queued, "host_timeout") == ["retried"]
    assert _record(app, queued, "infrastructure_error") == ["not_gradable"]
    with state(app).sessions() as session:
        assert service.attempts_used(session, pid, 1) == 0
    page = client.get(f"/exercise/{pid}", query_string={"lt": token}).get_data(as_text=True)
    assert "Next: attempt 1 of 2" in page
    assert "could not be graded" in page and "Could not be graded: try again later" in page
    assert "ran out of host time" not in page and "KeyError" not in page, \
        "our failure's detail stays on the desk"

    _submit(app, queued, pid, "alice")
    _submit(app, queued, pid, "alice")
    with pytest.raises(service.SubmissionError, match="used all 2 attempts.*give attempts back"):
        _submit(app, queued, pid, "alice")
    page = client.get(f"/exercise/{pid}", query_string={"lt": token}).get_data(as_text=True)
    assert "all 2 attempts used; the best counts" in page

    # A timeout is the learner's (charged), and never a green "graded" badge.
    assert _record(app, queued, "timeout") == ["graded", "graded"]
    page = client.get(f"/exercise/{pid}", query_string={"lt": token}).get_data(as_text=True)
    assert page.count('data-tone="bad"') == 2 and 'data-tone="ok"' not in page
    assert page.count('status-badge">timed out</span>') == 2


def test_attempt_line_and_due_dates() -> None:
    assert attempts.attempt_line(1, 5, "best") == "attempt 2 of 5, the best counts"
    assert attempts.attempt_line(0, None, "last") == "attempt 1 (no limit), the last counts"
    placement = Placement(code_attempts=3, due_at=utcnow())
    assert attempts.code_limit(placement, None) == 3
    later = utcnow() + timedelta(days=2)
    given = attempts.Allowance(extra_attempts=2, due_at=later)
    assert attempts.code_limit(placement, given) == 5 and attempts.due(placement, given) == later
    assert attempts.code_limit(Placement(code_attempts=None), given) is None


def _teacher_desk(client: FlaskClient, platform: Platform) -> tuple[str, int]:
    return launch(client, platform, sub="teacher", role=INSTRUCTOR, context_id="course-1",
                  content_id=EXERCISE)


def test_the_desk_gives_attempts_back_an_extension_and_a_manual_score(
        app: Flask, client: FlaskClient, platform: Platform, queued: Queues) -> None:
    learner_token, pid = launch(client, platform, sub="alice", role=LEARNER,
                                context_id="course-1", content_id=EXERCISE)
    launch(client, platform, sub="bob", role=LEARNER, context_id="course-1",
           content_id=EXERCISE)
    with state(app).sessions() as session:
        placement = session.get(Placement, pid)
        placement.code_attempts = 1
        placement.due_at = utcnow() - timedelta(hours=1)  # closed for everyone
        # The roster the LMS sent (NRPS, cached): carol never opened anything.
        session.add(RosterCache(context_id=placement.context_id, fetched_at=utcnow(), members=[
            {"user_id": "alice", "name": "Alice Liddell", "roles": ["Learner"]},
            {"user_id": "bob", "name": "Bob Tables", "roles": ["Learner"]},
            {"user_id": "carol", "name": "Carol Never", "roles": ["Learner"]},
            {"user_id": "teacher", "name": "T", "roles": [INSTRUCTOR]}]))
        session.commit()
    with pytest.raises(service.SubmissionError, match="closed on"):
        _submit(app, queued, pid, "alice")
    with state(app).sessions() as session:
        session.get(Placement, pid).due_at = None
        session.commit()
    _submit(app, queued, pid, "alice")
    _record(app, queued, "graded", 1.0)

    token, _ = _teacher_desk(client, platform)
    desk = client.get(f"/instructor/desk/{pid}", query_string={"lt": token})
    assert desk.status_code == 200, desk.get_data(as_text=True)[:500]
    html = desk.get_data(as_text=True)
    for name in ("Alice Liddell", "Bob Tables", "Carol Never"):
        assert name in html
    assert 'data-sub="carol" data-opened="no"' in html and ">T<" not in html
    with state(app).sessions() as session:
        alice = session.scalar(select(LmsUser).where(LmsUser.sub == "alice"))
        key = f"{pid}.{alice.id}"
    page = client.get(f"/instructor/desk/learner/{key}", query_string={"lt": token})
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "masked = 1" in html, "the code, read-only"
    assert "secret input [7, 7]" in html and "hidden" in html, "every check, for the desk"
    assert "ran 1.2 s" in html and "masked: [1. 2. 0. 0.]" in html

    # Give one attempt back and an extension; bad input is refused with the reason.
    action, fields = _fields(html, "/allowance")
    refused = _post(client, action, {**fields, "extra_attempts": "1000", "reason": "x"})
    assert refused.status_code == 400 and "extra_attempts" in refused.get_data(as_text=True)
    later = (utcnow() + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M")
    given = _post(client, action, {**fields, "extra_attempts": "1", "due_at": later,
                                   "reason": "lost an attempt to a stray indent"})
    assert given.status_code == 303
    page = client.get(f"/exercise/{pid}", query_string={"lt": learner_token})
    assert "Next: attempt 2 of 2, the best counts" in page.get_data(as_text=True)
    _submit(app, queued, pid, "alice")  # allowed again

    # A manual score with a reason: stored, queued for the LMS, shown to the learner.
    html = client.get(f"/instructor/desk/learner/{key}",
                      query_string={"lt": token}).get_data(as_text=True)
    action, fields = _fields(html, "/score")
    assert _post(client, action, {**fields, "score": "9", "reason": "x"}).status_code == 400
    assert _post(client, action, {**fields, "score": "2.5", "reason": ""}).status_code == 400
    done = _post(client, action, {**fields, "score": "2.5",
                                  "reason": "correct answer refused by a stray line"})
    assert done.status_code == 303
    with state(app).sessions() as session:
        manual = session.scalars(select(ManualScore)).one()
        assert (manual.score, manual.max_score) == (2.5, 3.0)
        newest = session.scalars(select(ScoreOutbox).order_by(ScoreOutbox.id.desc())).first()
        assert (newest.score, newest.source) == (2.5, f"manual:{manual.id}")
        assert "stray line" in newest.comment
        outbox_rows = session.scalar(select(func.count()).select_from(ScoreOutbox))
    # A later graded attempt is kept but does not replace the instructor's score.
    _record(app, queued, "graded", 3.0)
    with state(app).sessions() as session:
        assert session.scalar(select(func.count()).select_from(ScoreOutbox)) == outbox_rows
    page = client.get(f"/exercise/{pid}", query_string={"lt": learner_token})
    text = page.get_data(as_text=True)
    assert "Your instructor set your score to" in text and "2.5 / 3" in text
    assert "correct answer refused by a stray line" in text

    # An adjustment: points added to the score the learner has now, kept within 0..max.
    html = client.get(f"/instructor/desk/learner/{key}",
                      query_string={"lt": token}).get_data(as_text=True)
    action, fields = _fields(html, "/score")
    both = _post(client, action, {**fields, "score": "1", "adjust": "1", "reason": "x"})
    assert both.status_code == 400 and "either a score or an adjustment" in \
        both.get_data(as_text=True)
    assert _post(client, action, {**fields, "adjust": "+5",
                                  "reason": "bonus for the write-up"}).status_code == 303
    with state(app).sessions() as session:
        newest = session.scalars(select(ManualScore).order_by(ManualScore.id.desc())).first()
        assert (newest.score, newest.reason) == (3.0, "adjusted by +5: bonus for the write-up")


def test_the_desk_is_for_instructors_of_the_course_only(
        app: Flask, client: FlaskClient, platform: Platform, queued: Queues) -> None:
    learner_token, pid = launch(client, platform, sub="alice", role=LEARNER,
                                context_id="course-1", content_id=EXERCISE)
    _submit(app, queued, pid, "alice")
    with state(app).sessions() as session:
        alice = session.scalar(select(LmsUser).where(LmsUser.sub == "alice")).id
    key = f"{pid}.{alice}"
    for url in (f"/instructor/desk/{pid}", f"/instructor/desk/learner/{key}"):
        assert client.get(url, query_string={"lt": learner_token}).status_code == 403
    other, _ = launch(client, platform, sub="teacher2", role=INSTRUCTOR, context_id="course-2",
                      content_id=EXERCISE)
    assert client.get(f"/instructor/desk/learner/{key}",
                      query_string={"lt": other}).status_code == 404
    assert client.get(f"/instructor/desk/{pid}", query_string={"lt": other}).status_code == 404
    mine, _ = _teacher_desk(client, platform)
    # No roster from the LMS here (no NRPS): the learners with activity, by name.
    desk = client.get(f"/instructor/desk/{pid}", query_string={"lt": mine})
    assert desk.status_code == 200 and 'data-sub="alice"' in desk.get_data(as_text=True)
    for bad in (f"{pid}.999999", "1.x", f"{pid}.{alice}.1", "9" * 30):
        assert client.get(f"/instructor/desk/learner/{bad}",
                          query_string={"lt": mine}).status_code == 404


def test_exports_name_every_learner_and_hold_attempts_and_final_scores(
        app: Flask, client: FlaskClient, platform: Platform, queued: Queues) -> None:
    _, pid = launch(client, platform, sub="alice", role=LEARNER, context_id="course-1",
                    content_id=EXERCISE)
    _submit(app, queued, pid, "alice")
    _record(app, queued, "graded", 2.0)
    token, _ = _teacher_desk(client, platform)
    attempts_csv = client.get("/instructor/exercise-attempts.csv", query_string={"lt": token})
    rows = list(csv.DictReader(io.StringIO(attempts_csv.get_data(as_text=True))))
    assert [(r["user_id"], r["attempt"], r["score"], r["counted"], r["run_s"]) for r in rows] \
        == [("alice", "1", "2.0", "1", "1.25")]
    final = client.get("/instructor/final-scores.csv", query_string={"lt": token})
    rows = list(csv.DictReader(io.StringIO(final.get_data(as_text=True))))
    mine = [r for r in rows if r["content_id"] == EXERCISE]
    # The teacher's launch placed the exercise a second time (another link): no attempt there.
    assert [(r["user_id"], r["name"], r["score"], r["how"]) for r in mine] == [
        ("alice", "Alice", "2.0", "attempt 1 (best counts)"),
        ("alice", "Alice", "", "no graded attempt")]
    view = client.get("/instructor/class", query_string={"lt": token}).get_data(as_text=True)
    assert f"/instructor/desk/{pid}" in view
    assert re.search(rf'href="/instructor/desk/learner/{pid}\.\d+\?lt=[^"]+#desk-attempts">'
                     r"submission #1 graded", view), "each submission links to the desk"
    outbox = view.split('id="outbox"', 1)[1]
    assert '<td class="learner-name">Alice</td>' in outbox
