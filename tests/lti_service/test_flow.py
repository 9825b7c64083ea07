"""The whole path on SQLite and PostgreSQL: deep link, learner launch, answer, gradebook."""

from __future__ import annotations

import re

from sqlalchemy import select

from devlms.browser import Browser, forms
from lti_service.checkpoints.models import CheckpointAttempt
from lti_service.core.models import Placement
from lti_service.outbox.models import ScoreOutbox
from lti_service.outbox.service.delivery import deliver_due


def _answer(browser: Browser, page, choice: str):  # type: ignore[no-untyped-def]
    form = next(f for f in forms(page.text)[0] if f.attrs.get("class", "").startswith("checkpoint"))
    return browser.submit(page, form, data={"choice": choice})


def test_deep_link_launch_answer_and_gradebook(stack) -> None:  # type: ignore[no-untyped-def]
    links = stack.deep_link(["arrays-04", "arrays-04.checkpoint", "arrays-04.exercise.mask-tail"],
                            max_attempts=2, counting="best")
    assert len(links) == 3
    by_content = {link["custom"]["content_id"]: link for link in links}
    lineitems = stack.lms_store.lineitems
    item = lineitems[by_content["arrays-04.exercise.mask-tail"]["lineitem_id"]]
    assert item["scoreMaximum"] == 3.0
    assert item["resourceId"] == "arrays-04.exercise.mask-tail"
    assert item["tag"] == "exercise"
    assert item["label"].endswith("Mask the tail")
    cp = lineitems[by_content["arrays-04.checkpoint"]["lineitem_id"]]
    assert (cp["scoreMaximum"], cp["tag"], cp["resourceId"]) == (1.0, "checkpoint",
                                                                 "arrays-04.checkpoint")

    alice = Browser()
    page = stack.launch(alice, by_content["arrays-04.checkpoint"]["id"], "alice")
    assert page.status_code == 200, page.text
    assert "Immutable updates and indexing" in page.text
    assert "After y = x.at[1].set(20.)" in page.text

    wrong = _answer(alice, page, "b")
    assert wrong.status_code == 200, wrong.text
    assert "JAX arrays are immutable values" in wrong.text
    right = _answer(alice, wrong, "a")
    assert "Right: .at[].set returns a new array." in right.text
    assert re.search(r"Attempts left: 0", right.text)
    third = _answer(alice, right, "a")
    assert third.status_code == 409
    assert "no attempts left" in third.text

    with stack.db() as session:
        attempts = list(session.scalars(select(CheckpointAttempt).order_by(
            CheckpointAttempt.attempt_number)))
        assert [(a.choice, a.correct, a.attempt_number) for a in attempts] == [
            ("b", False, 1), ("a", True, 2)]
        assert all(a.created_at is not None for a in attempts)
        placement = session.get(Placement, attempts[0].placement_id)
        assert (placement.max_attempts, placement.counting) == (2, "best")
        assert placement.lineitem_url and placement.lineitem_url.startswith(stack.lms_url)
        # the newest score; the first is superseded
        assert deliver_due(session, rules=stack.rules) == 1
        statuses = [r.status for r in session.scalars(select(ScoreOutbox).order_by(
            ScoreOutbox.id))]
        assert statuses == ["superseded", "delivered"]

    scores = stack.gradebook()["scores"]
    mine = [s for s in scores if s["userId"] == "alice"]
    assert len(mine) == 1
    assert mine[0]["resourceId"] == "arrays-04.checkpoint"
    assert (mine[0]["scoreGiven"], mine[0]["scoreMaximum"]) == (1.0, 1.0)
    assert mine[0]["activityProgress"] == "Completed"
    assert mine[0]["gradingProgress"] == "FullyGraded"


def test_deep_link_response_claims_and_exercise_launch(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    links = stack.deep_link(["arrays-04.exercise.mask-tail"])
    claims = stack.lms_store.deep_link_responses[-1]
    cfg = stack.lms_config
    assert claims["aud"] == [cfg.issuer], "the response is addressed to the platform"
    assert claims["iss"] == cfg.client_id
    assert claims["nonce"] and claims["exp"] > claims["iat"]
    assert claims["https://purl.imsglobal.org/spec/lti/claim/deployment_id"] == cfg.deployment_id
    item = claims["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"][0]
    assert item["type"] == "ltiResourceLink"
    assert item["lineItem"] == {"scoreMaximum": 3.0, "label": item["title"],
                                "resourceId": "arrays-04.exercise.mask-tail", "tag": "exercise"}
    assert item["custom"]["content_id"] == "arrays-04.exercise.mask-tail"
    stack.deep_link(["arrays-04"])
    nonces = [c["nonce"] for c in stack.lms_store.deep_link_responses]
    assert len(set(nonces)) == len(nonces) == 2

    page = stack.launch(Browser(), links[0]["id"], "alice")
    assert page.status_code == 200
    submissions = "submissions" in stack.tool.blueprints
    assert ("/learn/" not in page.url) if submissions else ("/learn/" in page.url)
    assert "Mask the tail" in page.text


def test_login_initiation_by_post_and_unknown_issuer(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    import requests

    cfg = sqlite_stack.lms_config
    form = {"iss": cfg.issuer, "login_hint": "alice", "client_id": cfg.client_id,
            "target_link_uri": cfg.tool_launch_url, "lti_message_hint": "h"}
    r = requests.post(sqlite_stack.tool_url + "/lti/login", data=form, allow_redirects=False,
                      timeout=30)
    assert r.status_code == 302 and r.headers["Location"].startswith(cfg.url("/authorize"))
    bad = requests.post(sqlite_stack.tool_url + "/lti/login", timeout=30,
                        data={**form, "iss": "https://unknown.example"})
    assert bad.status_code == 400 and "registration" in bad.text.lower()
    elsewhere = requests.post(sqlite_stack.tool_url + "/lti/login", timeout=30,
                              data={**form, "target_link_uri": "https://evil.example/x"})
    assert elsewhere.status_code == 400 and "target_link_uri" in elsewhere.text
