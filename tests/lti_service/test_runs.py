"""The Run button's service side: bounded (one in flight per learner, a window per learner,
a ceiling for the service), through the same queue as a grade (a job of kind "run"), never an
attempt, never a score, never a hidden check; and the learner-facing catalogue of outcomes."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select
from unit_launch import LEARNER, Platform, launch

from grader_worker.config import load_config
from grading_contract import signing
from grading_contract.queues import Queues
from lti_service.core.extensions import state
from lti_service.core.models import LmsUser, Placement, utcnow
from lti_service.outbox.models import ScoreOutbox
from lti_service.submissions import messages, runs, service
from lti_service.submissions.models import CodeRun, GradingRun, Submission
from lti_service.submissions.panel import QUEUES_KEY
from lti_service.submissions.settings import GradingSettings

EXERCISE = "arrays-04.exercise.mask-tail"
TOOL = "http://localhost"


@pytest.fixture
def queued(app: Flask, tmp_path: Path) -> Queues:
    queues = Queues(load_config({"PATHWAYS_VAR_DIR": str(tmp_path / "q")}))
    app.extensions[QUEUES_KEY] = queues
    return queues


def _jobs(queues: Queues) -> list[dict[str, Any]]:
    return [signing.verify(queues._key, signing.JOB, t.args[0]) for t in queues.grading.pending()]


def _run_result(run_id: str, outcome: str = "graded") -> dict[str, Any]:
    return {"schema": 1, "submission_id": run_id, "attempt": 1, "exercise_id": EXERCISE,
            "outcome": outcome, "score": 0.0, "max_score": 0.0, "kind": "run",
            "feedback": "Your program ran to its end.",
            "checks": [{"name": "main.py runs to its end", "status": "passed", "points": 0,
                        "max_points": 0, "feedback": "", "visibility": "visible"},
                       {"name": "secret [7]", "status": "failed", "points": 0,
                        "max_points": 0, "feedback": "expected 42", "visibility": "hidden"}],
            "stdout": "masked: [1. 2. 0. 0.]\n", "stderr": "", "truncated": {},
            "timings": {"queued_s": 0.0, "run_s": 0.1, "total_s": 0.1},
            "environment": {"python": "3", "jax": "0", "backend": "cpu", "device_count": 1,
                            "host": "h", "worker": "w"}}


def _start(app: Flask, queues: Queues, pid: int, settings: GradingSettings,
           now: Any = None) -> CodeRun:
    with state(app).sessions() as session:
        row = runs.start(session, queues, settings, placement=session.get(Placement, pid),
                         user=session.scalar(select(LmsUser).where(LmsUser.sub == "alice")),
                         exercise_id=EXERCISE, source="print(1)\n", variant={}, now=now)
        session.expunge(row)
        return row


def test_run_goes_through_the_queue_and_is_never_an_attempt_or_a_score(
        app: Flask, client: FlaskClient, platform: Platform, queued: Queues) -> None:
    token, pid = launch(client, platform, sub="alice", role=LEARNER, context_id="course-1",
                        content_id=EXERCISE)
    page = client.get(f"/exercise/{pid}", query_string={"lt": token}).get_data(as_text=True)
    csrf = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    sent = client.post(f"/exercise/{pid}/run", data={"lt": token, "csrf_token": csrf,
                                                    "source": "print('hi')\n"},
                       headers={"Origin": TOOL, "Accept": "application/json"})
    assert sent.status_code == 202, sent.get_data(as_text=True)
    body = sent.get_json()
    assert body["status"] == "queued" and body["badge"] == "queued"
    (job,) = _jobs(queued)
    assert job["kind"] == "run" and job["submission_id"] == body["id"]
    again = client.post(f"/exercise/{pid}/run", data={"lt": token, "csrf_token": csrf,
                                                     "source": "print('hi')\n"},
                        headers={"Origin": TOOL, "Accept": "application/json"})
    assert again.status_code == 400 and "still going" in again.get_json()["messages"][0]

    with state(app).sessions() as session:
        assert service.record_result(session, queued, GradingSettings(),
                                     _run_result(body["id"])) == "ran"
        assert service.record_result(session, queued, GradingSettings(),
                                     _run_result(body["id"])) == "duplicate"
        for model in (Submission, GradingRun, ScoreOutbox):
            assert session.scalar(select(func.count()).select_from(model)) == 0
    status = client.get(body["status_url"]).get_json()
    assert status["done"] and status["badge"] == "ran" and status["tone"] == "ok"
    assert [c["name"] for c in status["checks"]] == ["main.py runs to its end"], \
        "never a hidden check"
    assert "expected 42" not in str(status) and "masked:" in status["stdout"]
    page = client.get(f"/exercise/{pid}", query_string={"lt": token}).get_data(as_text=True)
    assert "masked: [1. 2. 0. 0.]" in page, "the last run shows on the page (no JavaScript)"
    assert "Next: attempt 1 (no limit), the best counts" in page

    # Without JavaScript the form posts to Run and comes back to the page, where it shows.
    plain = client.post(f"/exercise/{pid}/run", data={"lt": token, "csrf_token": csrf,
                                                     "source": "print('again')\n"},
                        headers={"Origin": TOOL})
    assert plain.status_code == 303 and plain.headers["Location"].endswith("#run")
    refused = client.post(f"/exercise/{pid}/run", data={"lt": token, "csrf_token": csrf,
                                                       "source": "print('again')\n"},
                          headers={"Origin": TOOL})
    assert refused.status_code == 400 and "still going" in refused.get_data(as_text=True)
    assert "print(&#39;again&#39;)" in refused.get_data(as_text=True), "the code is kept"

    # Another learner cannot read alice's run.
    bob, _ = launch(client, platform, sub="bob", role=LEARNER, context_id="course-1",
                    content_id=EXERCISE)
    assert client.get(f"/runs/{body['id']}/status.json", query_string={"lt": bob}) \
        .status_code in (403, 404)


def test_runs_are_bounded_per_learner_and_for_the_service(
        app: Flask, client: FlaskClient, platform: Platform, queued: Queues) -> None:
    _, pid = launch(client, platform, sub="alice", role=LEARNER, context_id="course-1",
                    content_id=EXERCISE)
    settings = GradingSettings(runs_per_window=2, run_window_s=600, runs_in_flight=1,
                               run_stale_s=300)
    first = _start(app, queued, pid, settings)
    with state(app).sessions() as session:
        runs.record(session, _run_result(first.id))
    _start(app, queued, pid, settings)  # the second in the window; in flight
    with pytest.raises(runs.RunRefused, match="still going"):
        _start(app, queued, pid, settings)
    # Lost (no result past run_stale_s): it no longer holds the bound, and says "try again".
    later = utcnow() + timedelta(seconds=301)
    with pytest.raises(runs.RunRefused, match="2 runs in the last 10 minutes"):
        _start(app, queued, pid, settings, now=later)
    with state(app).sessions() as session:
        lost = session.scalars(select(CodeRun).where(CodeRun.status == "queued")).one()
        assert runs.state_of(lost, settings, later) == "failed"
    # The service's ceiling: another learner's run waits for a free slot.
    launch(client, platform, sub="bob", role=LEARNER, context_id="course-1", content_id=EXERCISE)
    with state(app).sessions() as session:
        bob = session.scalar(select(LmsUser).where(LmsUser.sub == "bob"))
        with pytest.raises(runs.RunRefused, match="graders are busy"):
            runs.start(session, queued, settings, placement=session.get(Placement, pid),
                       user=bob, exercise_id=EXERCISE, source="print(2)\n", variant={})


def test_the_catalogue_never_shows_a_timeout_as_graded_and_never_cuts_a_word() -> None:
    timeout = messages.outcome_of("graded", "timeout")
    assert timeout.badge == "timed out" and timeout.tone == "bad"
    for outcome in ("timeout", "exception", "syntax_error", "memory_limit", "sandbox_violation"):
        assert messages.outcome_of("graded", outcome).tone != "ok", outcome
    assert messages.outcome_of("graded", "exception").badge == "your program crashed"
    assert messages.outcome_of("graded", "sandbox_violation").badge == "refused"
    gone = messages.learner_feedback("not_gradable", None, "ChecksError: reference (secret)")
    assert "try again later" in gone and "secret" not in gone
    long = "word " * 400
    cut = messages.cut_words(long, 100)
    assert len(cut) <= 100 and cut.endswith("word…")
    assert messages.learner_feedback("graded", "exception", long).endswith("…")
