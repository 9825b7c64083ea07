"""Submitting main.py as a launched learner: stored, graded in the real sandbox through the
real queue, recorded by the consumer, and the counted score reaches the LMS gradebook."""

from __future__ import annotations

import shutil
from functools import partial
from pathlib import Path

import requests
from sqlalchemy import func, select

from devlms.browser import Browser, forms
from grader_worker.config import load_config
from grader_worker.worker import GraderWorker
from grading_contract.queues import Queues
from lti_service.consumer import Consumer
from lti_service.core.extensions import state
from lti_service.outbox.models import ScoreOutbox
from lti_service.outbox.service.delivery import deliver_due
from lti_service.submissions.models import GradingRun, Submission
from lti_service.submissions.panel import QUEUES_KEY
from lti_service.submissions.settings import GradingSettings

FIXTURE_CHECKS = Path(__file__).parents[1] / "grader_worker" / "fixtures" / "checks.py"
EXERCISE = "arrays-04.exercise.mask-tail"


def _grade_all(worker: GraderWorker, consumer: Consumer) -> None:
    """One worker and the consumer, in this process: run every waiting job, record results."""
    while worker.queues.process_one(worker.queues.grading):
        pass
    consumer.drain()


def test_submit_grade_record_and_score_reaches_lms(sqlite_stack, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    link = stack.deep_link([EXERCISE], max_attempts=3, counting="best")[0]
    lesson, exercise = state(stack.tool).course.get().exercise(EXERCISE)
    exercise.checks_path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(FIXTURE_CHECKS, exercise.checks_path)
    config = load_config({"PATHWAYS_VAR_DIR": str(tmp_path / "queue-var"),
                          "PATHWAYS_GRADER_HEARTBEAT_S": "0.5"})
    queues = Queues(config)
    stack.tool.extensions[QUEUES_KEY] = queues
    worker = GraderWorker(config, queues, checks_for=lambda _: exercise.checks_path)
    consumer = Consumer(state(stack.tool).sessions, queues, GradingSettings(),
                        deliver=partial(deliver_due, rules=stack.rules))
    try:
        alice = Browser()
        page = stack.launch(alice, link["id"], "alice")
        assert page.status_code == 200, page.text
        assert "Submit main.py" in page.text and exercise.title in page.text

        # Bad input: a non-UTF-8 upload is refused with a clear message; nothing is stored.
        action = page.url.split("?")[0] + "/submit"
        lt = page.url.split("lt=")[1]
        submit_form = next(f for f in forms(page.text)[0] if f.action.endswith("/submit"))
        hidden = {k: v for k, v in submit_form.fields if k in ("lt", "csrf_token")}
        assert set(hidden) == {"lt", "csrf_token"}, "the form carries the launch and CSRF tokens"
        bad = alice.http.post(action, data={**hidden, "source": "kept text"},
                              files={"main_py": ("main.py", b"x = '\xff\xfe'\n")}, timeout=30)
        assert bad.status_code == 400
        assert "not UTF-8" in bad.text and "byte 5" in bad.text and "kept text" in bad.text
        too_big = alice.http.post(action, data={**hidden, "source": "#" * 70_000}, timeout=30)
        assert too_big.status_code == 400 and "the limit is" in too_big.text

        # Attempt 1, pasted: wrong on purpose (x unchanged passes, masked fails).
        first = alice.submit(page, data={"source": lesson.main_code + "masked = x\n"})
        assert first.status_code == 200 and "Attempt 1" in first.text and "queued" in first.text
        with stack.db() as session:
            row = session.scalars(select(Submission)).one()
            assert (row.status, row.attempt_number, row.grading_try) == ("queued", 1, 1)
            status_url = f"{stack.tool_url}/submissions/{row.id}/status.json?lt={lt}"
        _grade_all(worker, consumer)
        status = alice.http.get(status_url, timeout=30).json()
        assert status["status"] == "graded" and status["outcome"] == "graded", status
        assert (status["score"], status["max_score"]) == (1.0, 3.0)
        assert [c["status"] for c in status["checks"]] == ["failed", "passed"]

        # Attempt 2, uploaded: the reference solution.
        source = lesson.main_code + exercise.solution_code
        resp = alice.http.post(action, data=hidden,
                               files={"main_py": ("main.py", source.encode())},
                               headers={"Accept": "application/json"}, timeout=30)
        assert resp.status_code == 202, resp.text
        assert resp.json()["status"] == "queued" and resp.json()["attempt_number"] == 2
        _grade_all(worker, consumer)
        history = alice.http.get(f"{action.rsplit('/', 1)[0]}/history.json?lt={lt}",
                                 timeout=30).json()
        assert [(s["attempt_number"], s["score"]) for s in history["submissions"]] == [
            (2, 3.0), (1, 1.0)]
        page = alice.get(page.url)
        assert "Counted score: <strong>3 / 3</strong>" in page.text

        # Another learner cannot read alice's submission.
        bob = Browser()
        bob_page = stack.launch(bob, link["id"], "bob")
        bob_lt = bob_page.url.split("lt=")[1]
        other = bob.http.get(status_url.replace(lt, bob_lt), timeout=30)
        assert other.status_code == 404

        with stack.db() as session:
            outbox = list(session.scalars(select(ScoreOutbox).order_by(ScoreOutbox.id)))
            assert [(o.score, o.max_score) for o in outbox] == [(1.0, 3.0), (3.0, 3.0)]
            assert session.scalar(select(func.count()).select_from(GradingRun)) == 2
        consumer.deliver_scores()
        scores = [s for s in stack.gradebook()["scores"] if s["userId"] == "alice"]
        assert scores and (scores[-1]["scoreGiven"], scores[-1]["scoreMaximum"]) == (3.0, 3.0)
        assert scores[-1]["gradingProgress"] == "FullyGraded"
    finally:
        worker.close()


def test_status_needs_a_launch(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    resp = requests.get(f"{sqlite_stack.tool_url}/submissions/nope/status.json", timeout=30)
    assert resp.status_code == 401
