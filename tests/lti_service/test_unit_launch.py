"""The unit fixtures end to end: a signed launch through the test client opens the lesson."""

from __future__ import annotations

from flask.testing import FlaskClient
from unit_launch import INSTRUCTOR, LEARNER, Platform, launch


def test_a_signed_learner_launch_opens_its_lesson_page(client: FlaskClient,
                                                       platform: Platform) -> None:
    token, placement_id = launch(client, platform, sub="alice", role=LEARNER,
                                 context_id="course-1", content_id="arrays-04")
    page = client.get(f"/learn/{placement_id}", query_string={"lt": token})
    assert page.status_code == 200, page.get_data(as_text=True)[:500]
    assert "Immutable updates and indexing" in page.get_data(as_text=True)


def test_a_launch_token_opens_only_its_own_placement(client: FlaskClient,
                                                     platform: Platform) -> None:
    alice, first = launch(client, platform, sub="alice", role=LEARNER, context_id="course-1",
                          content_id="arrays-04")
    _, second = launch(client, platform, sub="teacher", role=INSTRUCTOR, context_id="course-1",
                       content_id="arrays-04.checkpoint")
    assert second != first
    assert client.get(f"/learn/{second}", query_string={"lt": alice}).status_code in {401, 403}
