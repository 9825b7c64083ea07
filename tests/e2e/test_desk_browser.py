"""Issue 24 in a real Chromium, inside devlms's LMS iframe (the real course, the real sandboxed
grader): a learner uses Run, then submits with a fair attempt count ("attempt 2 of 5, the best
counts"); the instructor opens that submission on the grading desk, gives an attempt back and a
manual score with a reason, and devlms's gradebook shows it. axe-core: no serious or critical
violation on the new pages (light and dark)."""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from course import submission_for
from lti_service.core.extensions import state

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "lti_service"))  # the service tests' loopback stack
from lti_stack import Stack  # noqa: E402
from test_ux_browser import (  # noqa: E402  (tests/e2e is on the path)
    assert_accessible,
    launch,
    learners_exercise,
    run_graded_stack,
    tool_frame,
)

pytestmark = pytest.mark.browser
EXERCISE = "arrays-04.exercise.mask-tail"
REASON = "the right answer was refused for a stray indented line"


@pytest.fixture
def desk_stack(tmp_path: Path) -> Iterator[Stack]:
    """Graded, and each score delivered to devlms's gradebook as the consumer would."""
    yield from run_graded_stack(tmp_path, deliver_scores=True)


def _type(page, frame, text: str) -> None:  # type: ignore[no-untyped-def]
    frame.locator(".cm-content").click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.insert_text(text)


def test_run_submit_then_the_desk_gives_an_attempt_and_a_score_the_lms_shows(
        desk_stack: Stack, open_browser, shoot) -> None:  # type: ignore[no-untyped-def]
    stack = desk_stack
    stack.deep_link([EXERCISE], code_attempts=5)
    lesson, exercise = state(stack.tool).course.get().exercise(EXERCISE)
    page = open_browser(third_party_cookies=True).new_page()

    # The learner: the attempt policy before submitting, then Run (never counted).
    frame = launch(page, stack, EXERCISE, "alice")
    frame.locator(".cm-editor .cm-content").wait_for()
    assert "Next: attempt 1 of 5, the best counts" in frame.locator("#attempt-line").inner_text()
    mine = learners_exercise(stack, exercise, frame.url, "alice")
    wrong = submission_for(lesson, mine, "def mask_tail(x):\n    return x\n\n"
                           "masked = mask_tail(x)\nprint('masked:', masked)\n")
    _type(page, frame, wrong)
    frame.locator("#run-button").click()
    ran = frame.locator("#run-result[data-run-status='done']")
    ran.wait_for(timeout=180_000)
    text = ran.inner_text()
    assert "ran" in text and "masked: [1. 2. 3. 4.]" in text, text
    assert "matches the reference on the lesson's example: failed" in text, text
    assert "Hidden" not in text and "hidden" not in text
    assert frame.locator("article.attempt").count() == 0, "a run is not an attempt"
    assert_accessible(page, frame, "exercise-run", shoot)

    # Submit: graded (the hidden checks fail this one), one attempt used of five.
    frame.locator("#submit-form button[type=submit]:not(.secondary)").click()
    graded = frame.locator("article.attempt[data-status='graded']")
    graded.wait_for(timeout=180_000)
    points = f"{exercise.max_points:g}"
    assert f" / {points}" in graded.inner_text() and f"{points} / {points}" not in \
        graded.inner_text()
    line = frame.locator("#attempt-line", has_text="Next: attempt 2 of 5, the best counts")
    line.wait_for(timeout=30_000)  # updated in place, and the same after a reload
    frame = launch(page, stack, EXERCISE, "alice")
    assert "Next: attempt 2 of 5, the best counts" in frame.locator("#attempt-line").inner_text()

    # The instructor: class view -> the desk (whole roster, by name) -> alice's submission.
    frame = launch(page, stack, EXERCISE, "teacher")
    frame.get_by_role("link", name="Class view").click()
    frame = tool_frame(page)
    frame.locator("#desks a").first.click()
    frame = tool_frame(page)
    frame.locator("#desk-roster").wait_for()
    roster = frame.locator("#desk-roster").inner_text()
    assert "Alice Learner" in roster and "Bob Learner" in roster and "not opened yet" in roster
    assert "Terry Teacher" not in roster
    assert_accessible(page, frame, "desk", shoot)
    frame.get_by_role("link", name="Alice Learner").click()
    frame = tool_frame(page)
    frame.locator("article.desk-attempt").wait_for()
    code = frame.locator("article.desk-attempt textarea[readonly]").first
    assert "return x" in code.input_value(), "the submitted code, read-only"
    assert frame.locator("article.desk-attempt tr.check").count() >= 2, "per-check feedback"
    assert "ran" in frame.locator("article.desk-attempt .meta").inner_text(), "timing"
    assert_accessible(page, frame, "desk-learner", shoot)

    # An attempt back, then a manual score with a reason.
    form = frame.locator("#allowance-form")
    form.get_by_label("Reason").fill("lost an attempt to a stray indent")
    form.get_by_role("button", name="Give").click()
    frame = tool_frame(page)
    frame.locator("#saved").wait_for()
    assert "1 given back" in frame.locator("#attempts-used").inner_text()
    form = frame.locator("#score-form")
    form.get_by_label(re.compile("^Score")).fill("5")
    form.get_by_label(re.compile("^Reason")).fill(REASON)
    form.get_by_role("button", name=re.compile("^Set the score")).click()
    frame = tool_frame(page)
    # The allowance's page already shows a #saved notice: wait for the score's own.
    frame.locator("#saved", has_text="the score is on its way").wait_for()
    assert f"5 / {points}" in frame.locator("#learner-score").inner_text()
    assert_accessible(page, frame, "desk-learner-saved", shoot)

    # The LMS gradebook shows the instructor's score and reason (posted through the outbox).
    deadline = time.monotonic() + 60
    row = page.locator(f"tr.score[data-user='alice'][data-resource='{EXERCISE}']")
    while True:
        page.goto(stack.lms_url + "/gradebook")
        if row.count() and f"5.0 / {exercise.max_points:.1f}" in row.first.inner_text():
            break
        assert time.monotonic() < deadline, page.locator("#gradebook").inner_text()
        time.sleep(1)
    assert REASON in row.first.inner_text()
    shoot(page, "lms-gradebook")

    # The learner sees the score with its reason, and the attempt given back.
    frame = launch(page, stack, EXERCISE, "alice")
    assert REASON in frame.locator("#manual-score").inner_text()
    assert "Next: attempt 2 of 6, the best counts" in frame.locator("#attempt-line").inner_text()
