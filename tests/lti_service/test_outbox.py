"""Scores through the outbox: a down LMS delays a score, never loses it; tokens are cached."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from sqlalchemy import select

from devlms import DevLmsConfig, Store
from devlms import create_app as create_lms
from devlms.browser import Browser
from devlms.config import new_private_key_pem
from devlms.server import LiveServer, reserve_port
from devlms.state import KEY_FILE, open_state
from lti_service.core.models import LmsUser, Placement, Platform, utcnow
from lti_service.lti.models import AccessToken
from lti_service.outbox.models import ScoreOutbox
from lti_service.outbox.service.delivery import backoff, deliver_due, requeue
from lti_service.outbox.service.scores import record_score


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
        assert deliver_due(session, rules=stack.rules) == 0
        row = session.get(ScoreOutbox, row_id)
        assert (row.status, row.tries) == ("pending", 1)
        assert "ConnectionError" in row.last_error
        first_next = row.next_attempt_at
        assert first_next > utcnow() + timedelta(seconds=20)
        assert deliver_due(session, rules=stack.rules) == 0, "not due yet: nothing is tried"
        assert session.get(ScoreOutbox, row_id).tries == 1
        assert deliver_due(session, rules=stack.rules, now=first_next + timedelta(seconds=1)) == 0
        row = session.get(ScoreOutbox, row_id)
        assert row.tries == 2
        assert row.next_attempt_at - first_next >= backoff(2) - timedelta(seconds=5)
    assert backoff(2) == 2 * backoff(1) and backoff(30) == timedelta(hours=1)

    stack.lms_server = LiveServer(create_lms(stack.lms_config, stack.lms_store),
                                  port=stack.lms_server.port).start()
    with stack.db() as session:
        assert deliver_due(session, rules=stack.rules, now=utcnow() + timedelta(hours=2)) == 1
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
    with stack.db() as session:  # alice's first score is superseded by her second
        assert deliver_due(session, rules=stack.rules) == 2
        assert sorted(session.scalars(select(ScoreOutbox.status))) == [
            "delivered", "delivered", "superseded"]
    assert stack.lms_store.token_requests == 1
    _queue(stack, "bob", 0.0)
    with stack.db() as other_process:  # a fresh session, as `pathways consumer` would have
        assert deliver_due(other_process, rules=stack.rules) == 1
    assert stack.lms_store.token_requests == 1
    with stack.db() as session:
        token = session.scalars(select(AccessToken)).one()
        assert token.expires_at > utcnow() + timedelta(minutes=50)
        token.expires_at = utcnow() + timedelta(seconds=30)  # inside the refresh margin
        session.commit()
    _queue(stack, "bob", 1.0)
    with stack.db() as session:
        assert deliver_due(session, rules=stack.rules) == 1
    assert stack.lms_store.token_requests == 2


def test_resend_requeues_and_the_lms_gets_the_score_again(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    _launch_learner(stack, "alice")
    row_id = _queue(stack, "alice", 1.0)
    with stack.db() as session:
        assert deliver_due(session, rules=stack.rules) == 1
        posts = len(stack.lms_store.score_posts)
        assert requeue(session, [session.get(ScoreOutbox, row_id)]) == 1
        session.commit()
        assert deliver_due(session, rules=stack.rules) == 1
    assert len(stack.lms_store.score_posts) == posts + 1


# --- an LMS that restarts: with its state, with a new key, with nothing -------------------


def _keep_lms_state(stack, state_dir: Path) -> None:  # type: ignore[no-untyped-def]
    """Run the stack's LMS as ``python -m devlms --state-dir`` does: key and store on disk."""
    stack.lms_server.stop()
    stack.lms_store = open_state(stack.lms_config, state_dir)
    stack.lms_server = LiveServer(create_lms(stack.lms_config, stack.lms_store),
                                  port=stack.lms_server.port).start()


def _restart_lms(stack, state_dir: Path | None) -> None:  # type: ignore[no-untyped-def]
    """A new devlms process on the same port: a fresh config (a new key unless the state
    folder has one) and the state folder's store, or an empty one."""
    cfg = DevLmsConfig(base_url=stack.lms_config.base_url,
                       tool_base_url=stack.lms_config.tool_base_url)
    store = open_state(cfg, state_dir) if state_dir is not None else Store()
    stack.lms_config, stack.lms_store = cfg, store
    stack.lms_server = LiveServer(create_lms(cfg, store), port=stack.lms_server.port).start()


def _pending_while_down(stack, state_dir: Path) -> int:  # type: ignore[no-untyped-def]
    """A delivered score (so a token is stored), the LMS stops, a second score is queued and
    its first try fails: the row the LMS must get once it is back."""
    _keep_lms_state(stack, state_dir)
    _launch_learner(stack, "alice")
    _queue(stack, "alice", 0.0)
    with stack.db() as session:
        assert deliver_due(session, rules=stack.rules) == 1
    assert stack.lms_store.token_requests == 1
    stack.lms_server.stop()
    row_id = _queue(stack, "alice", 1.0)
    with stack.db() as session:
        assert deliver_due(session, rules=stack.rules) == 0
        assert session.get(ScoreOutbox, row_id).status == "pending"
    return row_id


def _deliver_later(stack, row_id: int, hours: int = 2) -> ScoreOutbox:  # type: ignore[no-untyped-def]
    with stack.db() as session:
        session.expire_on_commit = False
        deliver_due(session, rules=stack.rules, now=utcnow() + timedelta(hours=hours))
        return session.get(ScoreOutbox, row_id)


def test_lms_restarted_with_its_state_takes_the_pending_score(sqlite_stack, tmp_path) -> None:  # type: ignore[no-untyped-def]
    row_id = _pending_while_down(sqlite_stack, tmp_path / "lms")
    _restart_lms(sqlite_stack, tmp_path / "lms")
    row = _deliver_later(sqlite_stack, row_id)
    assert (row.status, row.tries, row.last_error) == ("delivered", 2, "")
    assert sqlite_stack.lms_store.token_requests == 0, "the same key: the stored token still works"
    scores = [s for s in sqlite_stack.gradebook()["scores"] if s["userId"] == "alice"]
    assert [s["scoreGiven"] for s in scores] == [1.0]


def test_lms_back_with_a_new_key_refuses_the_stored_token_and_a_fresh_one_delivers(
    sqlite_stack, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    """The gradebook survived but the signing key did not (rotated, or tokens kept in memory):
    the stored token is answered 401, dropped, and the same try succeeds with a new one."""
    row_id = _pending_while_down(sqlite_stack, tmp_path / "lms")
    (tmp_path / "lms" / KEY_FILE).unlink()
    _restart_lms(sqlite_stack, tmp_path / "lms")
    row = _deliver_later(sqlite_stack, row_id)
    assert (row.status, row.tries, row.last_error) == ("delivered", 2, "")
    assert sqlite_stack.lms_store.token_requests == 1
    scores = [s for s in sqlite_stack.gradebook()["scores"] if s["userId"] == "alice"]
    assert [s["scoreGiven"] for s in scores] == [1.0]
    with sqlite_stack.db() as session:
        token = session.scalars(select(AccessToken)).one()
        assert token.expires_at > utcnow() + timedelta(minutes=50), "the new token is kept"


def test_lms_back_without_state_fails_the_score_with_the_reason(sqlite_stack,
                                                                 tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A devlms run without --state-dir forgets its line items: its 404 is a refusal that a
    retry would only repeat, so the score is ``failed`` at once with the LMS's own answer as
    the reason (the instructor resends once the column exists again; the stored token, voided
    by the new key, was replaced)."""
    row_id = _pending_while_down(sqlite_stack, tmp_path / "lms")
    _restart_lms(sqlite_stack, None)
    row = _deliver_later(sqlite_stack, row_id)
    assert (row.status, row.tries) == ("failed", 2)
    assert "404" in row.last_error and "not found" in row.last_error.lower(), row.last_error
    assert sqlite_stack.lms_store.token_requests == 1
    assert sqlite_stack.gradebook()["scores"] == []


def test_a_refused_fresh_token_is_not_retried_and_the_row_backs_off(sqlite_stack,
                                                                    caplog) -> None:  # type: ignore[no-untyped-def]
    """The LMS restarts with a new key, and the platform's token URL names another LMS: the
    stored token and every fresh one are answered 401. The first try drops the stored token and
    posts once more; each try asks for one token, then the row backs off."""
    stack = sqlite_stack
    _launch_learner(stack, "alice")
    _queue(stack, "alice", 0.0)
    with stack.db() as session:
        assert deliver_due(session, rules=stack.rules) == 1  # a token is stored
    stack.lms_server.stop()
    stack.lms_config.private_key_pem = new_private_key_pem()  # the stored token is void
    stack.lms_server = LiveServer(create_lms(stack.lms_config, stack.lms_store),
                                  port=stack.lms_server.port).start()
    other_port = reserve_port()
    other_cfg = DevLmsConfig(base_url=f"http://127.0.0.1:{other_port}",
                             tool_base_url=stack.lms_config.tool_base_url)
    other_store = Store()
    other = LiveServer(create_lms(other_cfg, other_store), port=other_port).start()
    try:
        with stack.db() as session:
            platform = session.scalars(select(Platform)).one()
            platform.auth_token_url = other_cfg.url("/token")
            session.commit()
        row_id = _queue(stack, "alice", 1.0)
        for attempt in (1, 2, 3):
            row = _deliver_later(stack, row_id, hours=2 * attempt)
            assert (row.status, row.tries) == ("pending", attempt)
            assert "401" in row.last_error and "score scope" in row.last_error, row.last_error
            assert other_store.token_requests == attempt, "one fresh token per try, no loop"
            assert row.next_attempt_at > utcnow() + timedelta(hours=2 * attempt)
    finally:
        other.stop()
    retries = [r for r in caplog.records if "refused a stored access token" in r.getMessage()]
    assert len(retries) == 1, "only the stored token earns a second post"
    assert [s["scoreGiven"] for s in stack.gradebook()["scores"]] == [0.0]


def test_the_operator_sets_the_first_retry_delay(sqlite_stack, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """OUTBOX_RETRY_BASE_S reaches the consumer's deliveries: a short first delay (a local
    stack, a test) and the same doubling after it."""
    from lti_service.consumer import delivery_for
    from lti_service.core.config import Config

    stack = sqlite_stack
    monkeypatch.setenv("OUTBOX_RETRY_BASE_S", "2")
    deliver = delivery_for(Config.from_env({"database_url": "sqlite://", "var_dir": tmp_path}))
    _launch_learner(stack, "alice")
    row_id = _queue(stack, "alice", 1.0)
    stack.lms_server.stop()
    with stack.db() as session:
        before = utcnow()
        assert deliver(session) == 0
        row = session.get(ScoreOutbox, row_id)
        assert row.tries == 1
        assert timedelta(seconds=1) <= row.next_attempt_at - before <= timedelta(seconds=10)
    assert backoff(3, timedelta(seconds=2)) == timedelta(seconds=8)
