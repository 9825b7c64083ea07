"""Arithmetic in content text stays arithmetic: ``0.5*20 + 0.25*4`` in a plan step rendered as
"0.520 + 0.254" (the stars became emphasis) before the renderer kept a star between two word
characters literal (issue 24)."""

from __future__ import annotations

import pytest

from course.render import markdown
from tests.packaged import packaged_course


@pytest.mark.parametrize(("text", "shown"), [
    ("0.5*20 + 0.25*4 + 0.25*6", "0.5*20 + 0.25*4 + 0.25*6"),
    ("x*y*z and f(x)*g(x)*2", "x*y*z and f(x)*g(x)*2"),
    ("use `a*b*c` here", "use <code>a*b*c</code> here"),
])
def test_a_star_between_operands_is_not_emphasis(text: str, shown: str) -> None:
    rendered = markdown.inline(text)
    assert rendered == shown and "<em>" not in markdown.block(text)


def test_emphasis_as_written_is_still_emphasis() -> None:
    assert markdown.inline("an *idea*, a **rule**.") == \
        "an <em>idea</em>, a <strong>rule</strong>."
    assert "<mo>" in markdown.inline("$a*b*c$"), "math keeps its own stars"


def test_the_course_plan_step_with_arithmetic_renders_as_written() -> None:
    course = packaged_course()
    steps = [step for _, ex in course.exercises() for step in ex.plan if "0.5*20" in step]
    assert steps, "the content this test reads has the plan step of issue 24"
    for step in steps:
        rendered = markdown.inline(step)
        assert "0.5*20 + 0.25*4" in rendered and "<em>" not in rendered
