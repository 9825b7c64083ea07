"""A repeated request is the same attempt: checkpoint answers (page form and JSON API) and
submissions with the same request key return the first result and charge nothing; the
database's unique keys decide, so repeats racing each other still make one row."""

from __future__ import annotations

import re
import threading
import uuid
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from unit_launch import LEARNER, Platform, launch

from grading_contract.config import QueueConfig
from grading_contract.queues import Queues
from lti_service.checkpoints.models import CheckpointAttempt
from lti_service.core.db import make_engine, make_session_factory, upgrade
from lti_service.core.extensions import state
from lti_service.core.models import LmsContext, LmsUser, Placement
from lti_service.core.models import Platform as PlatformRow
from lti_service.outbox.models import ScoreOutbox
from lti_service.submissions import service
from lti_service.submissions.models import Submission
from lti_service.submissions.settings import GradingSettings

SETTINGS = GradingSettings(queued_lease_s=120, running_lease_s=30, max_tries=3)


def _count(app: Flask, model: type) -> int:
    with state(app).sessions() as session:
        return session.scalar(select(func.count()).select_from(model)) or 0


def test_the_api_answers_a_repeated_key_with_the_first_answer(app: Flask, client: FlaskClient,
                                                              platform: Platform) -> None:
    token, pid = launch(client, platform, sub="alice", role=LEARNER, context_id="course-1",
                        content_id="arrays-04.checkpoint")
    url = f"/api/placements/{pid}/checkpoint-answers"
    key = uuid.uuid4().hex
    headers = {"X-Pathways-Launch": token, "Idempotency-Key": key}
    first = client.post(url, json={"choice": "b"}, headers=headers)
    assert first.status_code == 201, first.get_data(as_text=True)
    scores = _count(app, ScoreOutbox)
    again = client.post(url, json={"choice": "b"}, headers=headers)
    assert again.status_code == 201
    assert again.get_json() == first.get_json()
    assert _count(app, CheckpointAttempt) == 1 and _count(app, ScoreOutbox) == scores
    # The key in the body works too; another key is another attempt.
    second = client.post(url, json={"choice": "b", "request_key": "k" * 20},
                         headers={"X-Pathways-Launch": token})
    assert second.get_json()["attempt_number"] == 2
    assert client.post(url, json={"choice": "b", "request_key": "k" * 20},
                       headers={"X-Pathways-Launch": token}).get_json()["attempt_number"] == 2
    assert _count(app, CheckpointAttempt) == 2
    bad = client.post(url, json={"choice": "b"},
                      headers={"X-Pathways-Launch": token, "Idempotency-Key": "<script>"})
    assert bad.status_code == 400 and "<script>" not in bad.get_data(as_text=True)


def test_a_page_form_sent_twice_is_one_attempt(app: Flask, client: FlaskClient,
                                               platform: Platform) -> None:
    token, pid = launch(client, platform, sub="alice", role=LEARNER, context_id="course-1",
                        content_id="arrays-04.checkpoint")
    page = client.get(f"/learn/{pid}", query_string={"lt": token}).get_data(as_text=True)
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', page))
    assert re.fullmatch(r"[0-9a-f]{32}", fields["request_key"])
    form = {**fields, "choice": "b"}
    first = client.post(f"/learn/{pid}/answer", data=form)
    # post, redirect, get: to the result beside the question
    assert first.status_code == 303, first.get_data(as_text=True)[:400]
    assert first.headers["Location"].endswith("#checkpoint-result")
    again = client.post(f"/learn/{pid}/answer", data=form)  # the second click
    assert again.status_code == 303
    assert _count(app, CheckpointAttempt) == 1
    # A new render is a new key: the learner's next answer counts.
    page = client.get(f"/learn/{pid}", query_string={"lt": token}).get_data(as_text=True)
    fresh = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', page))
    assert fresh["request_key"] != fields["request_key"]
    client.post(f"/learn/{pid}/answer", data={**fresh, "choice": "b"})
    assert _count(app, CheckpointAttempt) == 2


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def world(request: pytest.FixtureRequest, tmp_path: Path):  # type: ignore[no-untyped-def]
    url = (request.getfixturevalue("fresh_postgres") if request.param == "postgres"
           else f"sqlite:///{tmp_path / 'db.sqlite3'}")
    upgrade(url)
    engine = make_engine(url)
    sessions = make_session_factory(engine)
    with sessions() as session:
        platform = PlatformRow(issuer="https://lms.test", client_id="c1", name="t",
                               auth_login_url="https://lms.test/a",
                               auth_token_url="https://lms.test/t",
                               key_set_url="https://lms.test/k")
        session.add(platform)
        session.flush()
        context = LmsContext(platform_id=platform.id, context_id="course-1", title="JAX")
        user = LmsUser(platform_id=platform.id, sub="alice", name="Alice")
        session.add_all([context, user])
        session.flush()
        placement = Placement(context_id=context.id, resource_link_id="rl-1", content_id="ex",
                              lineitem_url="https://lms.test/li/1", max_attempts=3,
                              counting="best")
        session.add(placement)
        session.commit()
        ids = (placement.id, user.id)
    queues = Queues(QueueConfig(var_dir=tmp_path / "var", redis_url=None, queue_prefix="t-",
                                grading_key=b"k" * 32))
    yield sessions, queues, ids
    engine.dispose()


def _submit(sessions, queues, ids, key):  # type: ignore[no-untyped-def]
    with sessions() as session:
        placement = session.get(Placement, ids[0])
        return service.submit(session, queues, SETTINGS, placement=placement,
                              user=session.get(LmsUser, ids[1]), exercise_id="ex",
                              source="print(1)\n", request_key=key).id


def test_a_repeated_submission_is_the_first_and_queues_one_job(world) -> None:  # type: ignore[no-untyped-def]
    sessions, queues, ids = world
    first = _submit(sessions, queues, ids, "key-0001")
    assert _submit(sessions, queues, ids, "key-0001") == first
    assert queues.pending()["grading"] == 1
    with sessions() as session:
        assert service.attempts_used(session, ids[0], ids[1], "ex") == 1
    # The key is enforced by the database, not only by the read before the write.
    with sessions() as session:
        session.add(Submission(id=str(uuid.uuid4()), placement_id=ids[0], user_id=ids[1],
                               exercise_id="ex", attempt_number=9, source="x",
                               source_sha256="0" * 64, status="queued",
                               request_key="key-0001"))
        with pytest.raises(IntegrityError):
            session.commit()


def test_repeats_racing_each_other_make_one_submission(world) -> None:  # type: ignore[no-untyped-def]
    sessions, queues, ids = world
    results: list[str] = []
    errors: list[BaseException] = []
    start = threading.Barrier(6)

    def one() -> None:
        start.wait()
        try:
            results.append(_submit(sessions, queues, ids, "race-key-1"))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=one) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(set(results)) == 1
    with sessions() as session:
        assert session.scalar(select(func.count()).select_from(Submission)) == 1
