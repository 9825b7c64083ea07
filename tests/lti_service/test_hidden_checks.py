"""Hidden checks are hidden everywhere the learner can read (issue 25, item 2): the page, the
exercise's ``status.json`` and ``history.json``, and the portfolio ZIP's ``receipt.json`` all go
through one serializer (``submissions.results``); a hidden check's title, feedback and the seed
of the hidden inputs never reach the learner's browser."""

from __future__ import annotations

import io
import zipfile
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select
from test_lesson_submit import EXERCISE, _fields, _page, _post, _result, app
from unit_launch import LEARNER, Platform, launch

from lti_service.core.extensions import state
from lti_service.submissions import service
from lti_service.submissions.models import Submission
from lti_service.submissions.panel import QUEUES_KEY
from lti_service.submissions.results import HIDDEN_NAME, learner_result
from lti_service.submissions.settings import GradingSettings

__all__ = ["app"]  # the unit app on the two-lesson course, with a queue of its own
SECRETS = ("SECRET-INPUT-[7, 7, 7]", "SECRET-EXPECTED-42", "SECRET-WORKER-HOST")


def _hidden_result(row: Submission) -> dict[str, Any]:
    result = _result(row, 1.0)
    result["checks"].append({"name": f"masked holds {SECRETS[0]}", "status": "failed",
                             "points": 0.0, "max_points": 2.0,
                             "feedback": f"expected {SECRETS[1]}", "visibility": "hidden"})
    result["environment"]["host"] = SECRETS[2]
    result["seed"] = 982451653
    return result


def _assert_hidden(text: str) -> None:
    for secret in (*SECRETS, "982451653"):
        assert secret not in text, secret


def test_hidden_checks_never_reach_the_learner(app: Flask, client: FlaskClient,
                                               platform: Platform) -> None:
    token, pid = launch(client, platform, sub="alice", role=LEARNER, context_id="course-1",
                        content_id="arrays-04")
    action, fields = _fields(_page(client, pid, token), f"/exercise/{EXERCISE}/submit")
    done = _post(client, action, {**fields, "source": "x = 1\n"},
                 headers={"Accept": "application/json"})
    assert done.status_code == 202
    with state(app).sessions() as session:
        row = session.scalars(select(Submission)).one()
        assert service.record_result(session, app.extensions[QUEUES_KEY], GradingSettings(),
                                     _hidden_result(row)) == "graded"
        stored = session.scalars(select(Submission)).one().result
        assert SECRETS[0] in str(stored), "the instructor's record keeps the whole result"

    status = client.get(done.get_json()["status_url"])
    history = client.get(action.rsplit("/", 1)[0] + "/history.json", query_string={"lt": token})
    page = _page(client, pid, token)
    zipped = client.get(f"/learn/{pid}/my-learning.zip", query_string={"lt": token})
    assert status.status_code == history.status_code == zipped.status_code == 200
    with zipfile.ZipFile(io.BytesIO(zipped.data)) as zf:
        receipt = next(zf.read(n).decode() for n in zf.namelist()
                       if n.endswith("receipt.json"))
    for text in (status.get_data(as_text=True), history.get_data(as_text=True), page, receipt):
        _assert_hidden(text)
        assert HIDDEN_NAME in text and "A hidden check failed" in text
    checks = status.get_json()["checks"]
    assert [(c["name"], c["status"], c["points"], c["max_points"]) for c in checks] == [
        ("masked", "passed", 1.0, 3.0), (HIDDEN_NAME, "failed", 0.0, 2.0)]


def test_the_serializer_copies_only_what_it_names() -> None:
    assert learner_result(None) == {}
    shown = learner_result({"score": 1, "future_field": SECRETS[1], "checks": ["odd", {}],
                            "environment": {"worker": SECRETS[2], "python": "3.11"}})
    assert shown["score"] == 1 and "future_field" not in shown
    assert [c["name"] for c in shown["checks"]] == [HIDDEN_NAME, HIDDEN_NAME]
    assert shown["environment"] == {"python": "3.11"}
