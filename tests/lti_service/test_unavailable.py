"""A database that is down or a disk that is full: the learner gets a 503 with Retry-After and
a message to try again in a moment (not a generic 500); no secret reaches any log line."""

from __future__ import annotations

import logging
import sqlite3
import uuid
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import event
from unit_launch import LEARNER, Platform, launch

from lti_service import create_app
from lti_service.core.extensions import state
from lti_service.core.models import Placement
from pathways.logs import JsonFormatter, ScrubFilter, scrub


def test_a_full_disk_answers_503_with_retry_after(app: Flask, client: FlaskClient,
                                                  platform: Platform) -> None:
    token, pid = launch(client, platform, sub="alice", role=LEARNER, context_id="course-1",
                        content_id="arrays-04.checkpoint")
    engine = state(app).engine
    with state(app).sessions() as session:  # room for many answers: the disk fills first
        session.get(Placement, pid).max_attempts = 10_000
        session.commit()

    @event.listens_for(engine, "connect")
    def _full(dbapi_conn: sqlite3.Connection, _record: object) -> None:
        # SQLite's own "database or disk is full": the file may not grow by one page.
        pages = dbapi_conn.execute("PRAGMA page_count").fetchone()[0]
        dbapi_conn.execute(f"PRAGMA max_page_count = {pages}")

    engine.dispose()
    url = f"/api/placements/{pid}/checkpoint-answers"
    answered = client.post(url, json={"choice": "b"},
                           headers={"X-Pathways-Launch": token,
                                    "Idempotency-Key": uuid.uuid4().hex})
    # Either the write fails (503) or it fit in the pages there were; fill them until it fails.
    for _ in range(2000):
        if answered.status_code == 503:
            break
        answered = client.post(url, json={"choice": "b"}, headers={
            "X-Pathways-Launch": token, "Idempotency-Key": uuid.uuid4().hex})
        if answered.status_code == 409:  # out of attempts before the disk filled
            break
    assert answered.status_code == 503, answered.get_data(as_text=True)[:300]
    assert answered.headers["Retry-After"] == "5"
    assert "try again in a moment" in answered.get_json()["error"]


def test_a_database_that_is_down_answers_503(tmp_path: Path) -> None:
    app = create_app({"database_url": "postgresql+psycopg://nobody@127.0.0.1:9/none",
                      "var_dir": tmp_path, "secret_key": "s" * 32,
                      "tool_base_url": "http://localhost"})
    page = app.test_client().get("/lti/jwks")
    assert page.status_code == 503
    assert page.headers["Retry-After"] == "5"
    assert "try again in a moment" in page.get_data(as_text=True)


def test_launch_tokens_are_scrubbed_from_every_log_line() -> None:
    line = "Error handling request /learn/1?lt=eyJhbGciOi.secret.part&x=1"
    assert "eyJ" not in scrub(line) and "lt=[withheld]&x=1" in scrub(line)
    record = logging.LogRecord("gunicorn.error", logging.ERROR, __file__, 1,
                               "Error handling request %s", ("/learn/1?lt=abc.def",), None)
    assert ScrubFilter().filter(record)
    assert "abc.def" not in record.getMessage()
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "GET /a?id_token=zz&state=yy",
                               None, None)
    out = JsonFormatter().format(record)
    assert "zz" not in out and "yy" not in out


def test_gunicorn_preloads_and_scrubs() -> None:
    conf = Path(__file__).parents[2] / "deploy" / "gunicorn.conf.py"
    names: dict[str, object] = {}
    exec(compile(conf.read_text(), str(conf), "exec"), names)  # noqa: S102 - our config file
    assert names["preload_app"] is True
    names["on_starting"](None)  # type: ignore[operator]
    logger = logging.getLogger("gunicorn.error")
    assert any(isinstance(f, ScrubFilter) for f in logger.filters)
