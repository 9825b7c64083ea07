"""Ambiguous score posts (no answer, a 5xx, a process that died mid-POST) are posted again as
new posts with a new timestamp; "score already exists" after one counts as delivered; an older
score of a learner with a newer one is superseded, not posted; posts run concurrently."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import update
from test_outbox_rules import OK_TEXT, deliver, link, platform, queue, row  # noqa: F401

from lti_service.core.extensions import state
from lti_service.core.models import utcnow
from lti_service.outbox.models import ScoreOutbox
from lti_service.outbox.service.delivery import Deliveries

EXISTS = (400, '{"error": "Score already exists for the provided timestamp"}',
          "application/json", {})


def test_a_5xx_is_ambiguous_and_already_exists_then_counts_as_delivered(
        sqlite_stack, platform) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    stub, url = platform
    stub.scripts["amb"] = [(502, "bad gateway", "text/plain", {}), EXISTS]
    rid = queue(sqlite_stack, link(sqlite_stack, url, "amb"))
    assert deliver(sqlite_stack) == 0
    first = row(sqlite_stack, rid)
    assert first.status == "pending" and first.ambiguous
    assert deliver(sqlite_stack, later=timedelta(hours=2)) == 1
    assert row(sqlite_stack, rid).status == "delivered"  # not a false "failed"
    stamps = [p["score"]["timestamp"] for p in stub.posted("amb")]
    assert len(stamps) == 2 and stamps[1] > stamps[0]  # a new post, a new timestamp


def test_already_exists_without_an_ambiguous_post_is_still_a_failure(
        sqlite_stack, platform) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    stub, url = platform
    stub.scripts["plain"] = [EXISTS]
    rid = queue(sqlite_stack, link(sqlite_stack, url, "plain"))
    assert deliver(sqlite_stack) == 0
    assert row(sqlite_stack, rid).status == "failed"


def test_a_post_cut_by_a_dead_process_is_posted_anew(sqlite_stack, platform) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    stub, url = platform
    stub.scripts["crash"] = [OK_TEXT]
    rid = queue(sqlite_stack, link(sqlite_stack, url, "crash"))
    created = row(sqlite_stack, rid).created_at
    with sqlite_stack.db() as session:  # what a consumer killed mid-POST leaves behind
        session.execute(update(ScoreOutbox).where(ScoreOutbox.id == rid).values(
            posting_since=utcnow() - timedelta(minutes=2),
            next_attempt_at=utcnow() - timedelta(seconds=1)))
        session.commit()
    assert deliver(sqlite_stack) == 1
    done = row(sqlite_stack, rid)
    assert done.status == "delivered" and done.ambiguous and done.posting_since is None
    [posted] = stub.posted("crash")
    assert posted["score"]["timestamp"] > created.isoformat().replace("+00:00", "Z")


def test_an_older_score_of_a_learner_is_superseded_not_posted(sqlite_stack, platform) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    stub, url = platform
    stub.scripts["two"] = [OK_TEXT]
    placement = link(sqlite_stack, url, "two")
    old = queue(sqlite_stack, placement, score=0.0)
    new = queue(sqlite_stack, placement, score=1.0)
    assert deliver(sqlite_stack) == 1
    assert row(sqlite_stack, old).status == "superseded"
    assert row(sqlite_stack, new).status == "delivered"
    assert [p["score"]["scoreGiven"] for p in stub.posted("two")] == [1.0]


def test_posts_run_concurrently_with_a_bound(sqlite_stack, platform) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    stub, url = platform
    ids = []
    for i in range(6):
        stub.scripts[f"c{i}"] = [OK_TEXT]
        ids.append(queue(sqlite_stack, link(sqlite_stack, url, f"c{i}")))
    deliveries = Deliveries(state(sqlite_stack.tool).sessions, rules=sqlite_stack.rules,
                            concurrency=3)
    try:
        assert deliveries.tick() == 6
    finally:
        deliveries.close()
    assert all(row(sqlite_stack, i).status == "delivered" for i in ids)
    assert len({p["item"] for p in stub.posts}) == 6
