"""A parametrised checkpoint in the LMS with the real course (lesson 04's index question): each
learner sees their own variant, is graded against it, gets that variant's per-choice feedback,
the attempt records the variant, and the instructor's distribution counts choices by key."""

from __future__ import annotations

import csv
import html
import io
import json
import re
from collections import Counter
from urllib.parse import parse_qs, urlparse

import requests
from lti_stack import Stack
from sqlalchemy import select

from course.model import Checkpoint
from devlms.browser import Browser, forms
from lti_service.checkpoints.models import CheckpointAttempt
from lti_service.checkpoints.service import checkpoint_for
from lti_service.core.extensions import state
from lti_service.core.models import LmsUser, Placement

LESSON = "arrays-04"


def _answer(browser: Browser, page: requests.Response, key: str) -> requests.Response:
    """Post the page's answer form as a browser does (its launch and CSRF fields included)."""
    form = next(f for f in forms(page.text)[0] if f.action.split("?")[0].endswith("/answer"))
    answered = browser.submit(page, form, data={"choice": key})
    assert answered.status_code == 200, answered.text[:300]
    return answered


def test_learners_see_and_are_graded_against_their_own_variant(real_stack: Stack) -> None:
    stack = real_stack
    lesson = state(stack.tool).course.get().lesson(LESSON)
    assert lesson is not None and lesson.checkpoint.params, "lesson 04's checkpoint has params"
    # The lesson placement carries the checkpoint too: two placements, so two draws of the
    # variants (a hash of course, placement and learner), and the ids are deterministic.
    links = stack.deep_link([lesson.id, lesson.checkpoint.id], max_attempts=3, counting="last")
    pair: dict[str, tuple[Browser, requests.Response, Checkpoint]] = {}
    for link in links:
        pair = {}
        for sub in ("alice", "bob"):
            browser = Browser()
            page = stack.launch(browser, link["id"], sub)
            assert page.status_code == 200, page.text[:300]
            with stack.db() as session:
                placement = session.scalars(select(Placement).where(
                    Placement.resource_link_id == link["id"])).one()
                user = session.scalars(select(LmsUser).where(LmsUser.sub == sub)).one()
                shown = checkpoint_for(lesson.checkpoint, placement, user.id)
            assert shown == checkpoint_for(lesson.checkpoint, placement, user.id)  # stable
            pair[sub] = (browser, page, shown)
        if pair["alice"][2].correct_keys != pair["bob"][2].correct_keys:
            break
    assert pair["alice"][2].correct_keys != pair["bob"][2].correct_keys, "nothing to compare"
    first, second = "alice", "bob"
    expected: Counter[str] = Counter()

    for sub, (browser, page, mine) in pair.items():
        other = pair[second if sub == first else first][2]
        text = html.unescape(page.text)
        assert mine.question in text and other.question not in text
        assert mine.question != other.question

        # A choice right in the other variant is graded against this one.
        [theirs] = other.correct_keys
        [right] = mine.correct_keys
        # Each answer from the page the last one returned (each render has its own request
        # key: the same form sent twice is one attempt).
        current = _answer(browser, page, theirs)
        # A wrong choice whose feedback names the index: this variant's feedback.
        current = _answer(browser, current, "c")
        answered = " ".join(html.unescape(current.text).split())
        assert mine.choice("c").feedback in answered
        assert other.choice("c").feedback not in answered
        answered = " ".join(html.unescape(_answer(browser, current, right).text).split())
        assert mine.explanation in answered and other.explanation not in answered

        with stack.db() as session:
            user = session.scalars(select(LmsUser).where(LmsUser.sub == sub)).one()
            rows = list(session.scalars(select(CheckpointAttempt).where(
                CheckpointAttempt.user_id == user.id).order_by(CheckpointAttempt.attempt_number)))
        assert [(r.choice, r.correct) for r in rows] == [(theirs, False), ("c", False),
                                                         (right, True)]
        expected.update([theirs, "c", right])
        assert [r.variant for r in rows] == [dict(mine.variant)] * 3
        token = parse_qs(urlparse(page.url).query)["lt"][0]
        own = requests.get(f"{stack.tool_url}/api/placements/{placement.id}/my-attempts",
                           headers={"X-Pathways-Launch": token}, timeout=30).json()
        assert [a["variant"] for a in own["attempts"]] == [dict(mine.variant)] * 3

    # The instructor's distribution counts answers by choice key, whatever the variant.
    teacher = Browser()
    view = stack.launch(teacher, link["id"], "teacher")
    lt = view.url.split("lt=")[1]
    class_view = teacher.get(f"{stack.tool_url}/instructor/class?lt={lt}").text
    figure = class_view[class_view.index(f'data-placement="{placement.id}"'):]
    figure = figure[:figure.index("</figure>")]
    counts = dict(re.findall(r'data-key="([a-z])" data-count="(\d+)"', figure))
    assert counts == {key: str(expected[key]) for key in "abcde"}
    export = teacher.get(f"{stack.tool_url}/instructor/class.csv?lt={lt}").text
    answered = {(r["user_id"], r["variant"]) for r in csv.DictReader(io.StringIO(export))
                if r["content_id"] == placement.content_id}
    assert answered == {(sub, json.dumps(dict(cp.variant))) for sub, (_, _, cp) in pair.items()}
