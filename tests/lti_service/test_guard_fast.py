"""The guard, Origin/CSRF and bounded input on the answer routes, on the cheap `app`/`client`
fixtures (no tool or LMS server: `make test-fast` runs these, issue 26). The answer route's
guard also reads the learner's earlier attempts (``authz.Rows``, issue 23): the limit, the
counted score and a repeated request key are checked here through it."""

from __future__ import annotations

import json

from flask.testing import FlaskClient
from sqlalchemy import text
from unit_launch import INSTRUCTOR, LEARNER, Platform, launch

from lti_service.core.extensions import state


def _answer(client: FlaskClient, placement: int, token: str | None, body: object,
            **headers: str) -> tuple[int, dict]:
    if token:
        headers["X-Pathways-Launch"] = token
    r = client.post(f"/api/placements/{placement}/checkpoint-answers",
                    data=body if isinstance(body, str) else json.dumps(body),
                    content_type="application/json", headers=headers)
    return r.status_code, (r.get_json(silent=True) or {})


def test_the_guard_refuses_no_launch_another_placement_and_a_foreign_origin(
        client: FlaskClient, platform: Platform) -> None:
    alice, mine = launch(client, platform, sub="alice", role=LEARNER, context_id="c-1",
                         content_id="arrays-04.checkpoint")
    _, theirs = launch(client, platform, sub="teacher", role=INSTRUCTOR, context_id="c-1",
                       content_id="arrays-04", link_id="link-2")
    assert _answer(client, mine, None, {"choice": "a"})[0] == 401
    assert _answer(client, theirs, alice, {"choice": "a"})[0] == 403
    assert _answer(client, mine, alice, {"choice": "a"},
                   Origin="https://evil.example")[0] == 403
    assert _answer(client, mine, alice, {"choice": "a"}, Origin="null")[0] == 403
    assert _answer(client, 999_999, alice, {"choice": "a"})[0] in (403, 404)


def test_a_page_form_needs_its_csrf_token(client: FlaskClient, platform: Platform) -> None:
    alice, mine = launch(client, platform, sub="alice", role=LEARNER, context_id="c-1",
                         content_id="arrays-04.checkpoint")
    r = client.post(f"/learn/{mine}/answer", data={"lt": alice, "choice": "a"})
    assert r.status_code == 403


def test_bounded_bodies_are_refused_before_anything_is_stored(client: FlaskClient,
                                                               platform: Platform) -> None:
    alice, mine = launch(client, platform, sub="alice", role=LEARNER, context_id="c-1",
                         content_id="arrays-04.checkpoint")
    status, body = _answer(client, mine, alice, {"choice": "x" * 100_000})
    assert status == 422 and "x" * 100 not in json.dumps(body)
    assert _answer(client, mine, alice, "[" * 5000 + "]" * 5000)[0] == 400
    assert _answer(client, mine, alice, {"choice": "a", "extra": 1})[0] == 422
    assert _answer(client, mine, alice, {"choice": "a", "request_key": "short"})[0] == 422
    with state(client.application).sessions() as session:
        assert session.execute(text("SELECT count(*) FROM checkpoint_attempts")).scalar() == 0


def test_attempts_read_by_the_guard_count_limit_and_replay(client: FlaskClient,
                                                           platform: Platform) -> None:
    alice, mine = launch(client, platform, sub="alice", role=LEARNER, context_id="c-1",
                         content_id="arrays-04.checkpoint", link_id="link-1")
    bob, same = launch(client, platform, sub="bob", role=LEARNER, context_id="c-1",
                       content_id="arrays-04.checkpoint", link_id="link-1")
    assert same == mine
    key = "answer-key-0001"
    first = _answer(client, mine, alice, {"choice": "a", "request_key": key})
    assert first[0] == 201 and first[1]["attempt_number"] == 1
    assert _answer(client, mine, alice, {"choice": "a", "request_key": key}) == first
    left = [_answer(client, mine, alice, {"choice": c})[1]["attempts_left"] for c in "bc"]
    assert left == [1, 0]
    status, body = _answer(client, mine, alice, {"choice": "a"})
    assert status == 409 and "no attempts left" in json.dumps(body)
    # Another learner's attempts are theirs: bob starts at attempt 1 on the same placement.
    bobs = _answer(client, mine, bob, {"choice": "a"})
    assert bobs[0] == 201 and bobs[1]["attempt_number"] == 1, bobs
