"""Scores through the outbox: a down LMS delays a score, never loses it; tokens are cached."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from devlms import create_app as create_lms
from devlms.browser import Browser
from devlms.server import LiveServer
from lti_service.models import AccessToken, LmsUser, Placement, ScoreOutbox, utcnow
from lti_service.services.outbox import backoff, deliver_due, requeue
from lti_service.services.scores import record_score


def _launch_learner(stack, user: str, content_id: str = "arrays-04.checkpoint"):  # type: ignore[no-untyped-def]
    links = [v for v in stack.lms_store.links.values() if v.custom["content_id"] == content_id]
    link = links[0] if links else type("L", (), stack.deep_link([content_id])[0])
    link_id = link.id if hasattr(link, "id") else link["id"]
    page = stack.launch(Browser(), link_id, user)
    assert page.status_code == 200, page.text[:300]


def _queue(stack, user: str, score: float):  # type: ignore[no-untyped-def]
    with stack.db() as session:
        placement = session.scalars(select(Placement)).first()
        person = session.scalar(select(LmsUser).where(LmsUser.sub == user))
        row = record_score(session, placement=placement, user=person, score=score, max_score=1.0,
                           activity_progress="Completed", grading_progress="FullyGraded",
                           comment="test", source="test")
        session.commit()
        return row.id


def test_down_lms_delays_a_score_and_it_arrives_later(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    _launch_learner(stack, "alice")
    row_id = _queue(stack, "alice", 1.0)
    stack.lms_server.stop()
    with stack.db() as session:
        assert deliver_due(session) == 0
        row = session.get(ScoreOutbox, row_id)
        assert (row.status, row.tries) == ("pending", 1)
        assert "ConnectionError" in row.last_error
        first_next = row.next_attempt_at
        assert first_next > utcnow() + timedelta(seconds=20)
        assert deliver_due(session) == 0, "not due yet: nothing is tried"
        assert session.get(ScoreOutbox, row_id).tries == 1
        assert deliver_due(session, now=first_next + timedelta(seconds=1)) == 0
        row = session.get(ScoreOutbox, row_id)
        assert row.tries == 2
        assert row.next_attempt_at - first_next >= backoff(2) - timedelta(seconds=5)
    assert backoff(2) == 2 * backoff(1) and backoff(30) == timedelta(hours=1)

    stack.lms_server = LiveServer(create_lms(stack.lms_config, stack.lms_store),
                                  port=stack.lms_server.port).start()
    with stack.db() as session:
        assert deliver_due(session, now=utcnow() + timedelta(hours=2)) == 1
        row = session.get(ScoreOutbox, row_id)
        assert (row.status, row.tries, row.last_error) == ("delivered", 3, "")
    scores = [s for s in stack.gradebook()["scores"] if s["userId"] == "alice"]
    assert [s["scoreGiven"] for s in scores] == [1.0]


def test_access_tokens_are_cached_in_the_database(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    _launch_learner(stack, "alice")
    _launch_learner(stack, "bob")
    for user, score in (("alice", 0.0), ("bob", 1.0), ("alice", 1.0)):
        _queue(stack, user, score)
    with stack.db() as session:
        assert deliver_due(session) == 3
    assert stack.lms_store.token_requests == 1
    _queue(stack, "bob", 0.0)
    with stack.db() as other_process:  # a fresh session, as `pathways consumer` would have
        assert deliver_due(other_process) == 1
    assert stack.lms_store.token_requests == 1
    with stack.db() as session:
        token = session.scalars(select(AccessToken)).one()
        assert token.expires_at > utcnow() + timedelta(minutes=50)
        token.expires_at = utcnow() + timedelta(seconds=30)  # inside the refresh margin
        session.commit()
    _queue(stack, "bob", 1.0)
    with stack.db() as session:
        assert deliver_due(session) == 1
    assert stack.lms_store.token_requests == 2


def test_resend_requeues_and_the_lms_gets_the_score_again(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    _launch_learner(stack, "alice")
    row_id = _queue(stack, "alice", 1.0)
    with stack.db() as session:
        assert deliver_due(session) == 1
        posts = len(stack.lms_store.score_posts)
        assert requeue(session, [session.get(ScoreOutbox, row_id)]) == 1
        session.commit()
        assert deliver_due(session) == 1
    assert len(stack.lms_store.score_posts) == posts + 1
