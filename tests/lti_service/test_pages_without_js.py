"""Without JavaScript a submit opens the page at its result, never at the top (issue 24): a
checkpoint answer at ``#checkpoint-result`` (beside the question), an exercise submission at
``#history`` (its attempts, the new one listed)."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient
from test_lesson_submit import EXERCISE, _fields, _post, app
from unit_launch import LEARNER, Platform, launch

__all__ = ["app"]


def test_a_submit_without_javascript_redirects_to_its_result(
        app: Flask, client: FlaskClient, platform: Platform) -> None:
    token, pid = launch(client, platform, sub="alice", role=LEARNER, context_id="course-1",
                        content_id=EXERCISE)
    page = client.get(f"/exercise/{pid}", query_string={"lt": token}).get_data(as_text=True)
    action, fields = _fields(page, "/submit")
    sent = _post(client, action, {**fields, "source": "masked = 1\n"})
    assert sent.status_code == 303
    assert sent.headers["Location"].split("?")[0] == f"/exercise/{pid}"
    assert sent.headers["Location"].endswith("#history")
    shown = client.get(sent.headers["Location"]).get_data(as_text=True)
    assert 'id="history"' in shown and 'data-status="queued"' in shown

    token, pid = launch(client, platform, sub="alice", role=LEARNER, context_id="course-1",
                        content_id="arrays-04.checkpoint")
    page = client.get(f"/learn/{pid}", query_string={"lt": token}).get_data(as_text=True)
    action, fields = _fields(page, "/answer")
    sent = _post(client, action, {**fields, "choice": "a"})
    assert sent.status_code == 303
    assert sent.headers["Location"].endswith("#checkpoint-result")
    shown = client.get(sent.headers["Location"]).get_data(as_text=True)
    question = shown.index('<form class="checkpoint')
    assert question < shown.index('id="checkpoint-result"'), "the result follows the question"
