"""The lesson body is rendered once per (lesson, action) and the launch token put in by text
replacement (lti_service/learner/service/page.py): the result must equal a fresh render, every
time."""

from __future__ import annotations

from dataclasses import replace

import pytest

from lti_service.learner.service import page
from tests.packaged import packaged_course


@pytest.fixture(scope="module")
def lesson():
    return packaged_course().lesson("arrays-04")


def test_cached_body_equals_a_fresh_render_for_each_token(lesson) -> None:
    page._cache.clear()
    action = "/learner/placements/7/checkpoint"
    for token in ("tokenAAA.first-1", "tokenBBB.second_2"):
        fragment = str(page.lesson_fragment(lesson, action, {"lt": token}))
        assert fragment == page._render(lesson, action, {"lt": token})
        assert token in fragment
    assert len(page._cache) == 1
    # The second token's page carries no trace of the first one.
    assert "tokenAAA" not in str(page.lesson_fragment(lesson, action, {"lt": "tokenBBB.x"}))


def test_a_value_that_is_not_url_safe_skips_the_cache_and_is_escaped(lesson) -> None:
    page._cache.clear()
    action = "/learner/placements/7/checkpoint"
    hostile = '"><script>alert(1)</script>'
    fragment = str(page.lesson_fragment(lesson, action, {"lt": hostile}))
    assert fragment == page._render(lesson, action, {"lt": hostile})
    assert "<script>alert(1)</script>" not in fragment
    assert page._cache == {}


def test_each_learners_checkpoint_goes_into_one_shared_body(lesson) -> None:
    """Every learner has their own choice order (and variant): the body is rendered once, and
    each page equals a fresh render of the lesson with that learner's checkpoint."""
    page._cache.clear()
    action = "/learner/placements/7/checkpoint"
    before = page.body_renders()
    orders = [lesson.checkpoint.choices, tuple(reversed(lesson.checkpoint.choices)),
              lesson.checkpoint.choices[1:] + lesson.checkpoint.choices[:1]]
    for n, choices in enumerate(orders):
        mine = replace(lesson.checkpoint, choices=choices)
        fragment = str(page.lesson_fragment(lesson, action, {"lt": f"tok{n}"}, checkpoint=mine))
        assert fragment == page._render(replace(lesson, checkpoint=mine), action,
                                        {"lt": f"tok{n}"})
    assert page.body_renders() == before + 1 + len(orders)  # one shared body + the references
    assert len(page._cache) == 1
