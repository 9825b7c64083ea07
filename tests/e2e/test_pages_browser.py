"""Issue 24's pages in a real Chromium inside devlms's LMS iframe: a graded checkpoint on its
own page that locks after its last attempt, the phase project submitted from the LMS, and My
learning's ZIP re-imported (notes and code) into a fresh deployment, twice without duplicates.
axe-core finds no serious or critical violation on any new page, in either theme."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import select
from test_ux_browser import assert_accessible, assert_fits, launch, tool_frame
from test_ux_browser import graded_stack as _graded_stack

from course import submission_for
from lti_service.core.extensions import state
from lti_service.lti.service import outbound
from lti_service.outbox.models import ScoreOutbox
from lti_service.outbox.service.delivery import deliver_due

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "lti_service"))
from lti_stack import Stack, build_stack  # noqa: E402

pytestmark = pytest.mark.browser
graded_stack = _graded_stack  # the same fixture as the other browser tests
LESSON, CHECKPOINT = "arrays-04", "arrays-04.checkpoint"
EXERCISE = "arrays-04.exercise.mask-tail"
PROJECT = "project.arrays-audit"


def _in_view(frame, selector: str) -> bool:  # type: ignore[no-untyped-def]
    return frame.evaluate("""(s) => { const r = document.querySelector(s).getBoundingClientRect();
        return r.top < window.innerHeight && r.bottom > 0; }""", selector)


def test_a_graded_checkpoint_opens_on_its_own_page_and_locks_after_its_last_attempt(
        graded_stack: Stack, open_browser, shoot) -> None:  # type: ignore[no-untyped-def]
    stack = graded_stack
    lesson = state(stack.tool).course.get().lesson(LESSON)
    stack.deep_link([CHECKPOINT], max_attempts=2, counting="best")
    page = open_browser(third_party_cookies=True).new_page()
    frame = launch(page, stack, CHECKPOINT, "alice")
    frame.locator("article.checkpoint-page").wait_for()
    assert frame.locator("section.stage").count() == 0, "the question alone, not the lesson"
    assert frame.evaluate("document.documentElement.scrollHeight") < 3000
    assert_accessible(page, frame, "checkpoint-page", shoot)
    assert_fits(page.context, frame.url, "the checkpoint page")
    labels = frame.locator("form.checkpoint .choice-label").all_inner_texts()
    assert labels == [f"{chr(65 + i)}." for i in range(len(labels))], labels

    for attempt in (1, 2):
        wrong = next(c for c in frame.locator("form.checkpoint input[name='choice']").all()
                     if c.get_attribute("value") not in lesson.checkpoint.correct_keys)
        letter = frame.locator(f"label[for='{wrong.get_attribute('id')}'] .choice-label"
                               ).inner_text()
        wrong.check()
        frame.locator("form.checkpoint button[type=submit]").click()
        frame = tool_frame(page)
        frame.locator("#checkpoint-result-h", has_text=f"Attempt {attempt}:").wait_for()
        result = frame.locator("#checkpoint-result")
        assert f"Attempt {attempt}: not correct" in result.inner_text()
        assert f"Your answer: {letter}" in result.inner_text(), "as the learner saw it"
        assert frame.evaluate("location.hash") == "#checkpoint-result"
        assert _in_view(frame, "#checkpoint-result"), "the result is beside the question"
    choices = frame.locator("form.checkpoint input[name='choice']")
    assert all(c.is_disabled() for c in choices.all()), "the choices are locked"
    assert frame.locator("form.checkpoint button[type=submit]").count() == 0
    locked = frame.locator("#checkpoint-locked").inner_text()
    assert "Locked: you have used all 2 attempts" in locked
    assert_accessible(page, frame, "checkpoint-locked", shoot)

    # The light/dark choice is kept on the next page: the lesson section the question checks.
    frame.locator("#theme-toggle").check()
    frame.get_by_role("link", name=re.compile("^Read the lesson section")).click()
    frame = tool_frame(page)
    frame.locator(f"#{LESSON}-exercise").wait_for()
    assert frame.locator("#theme-toggle").is_checked(), "the theme choice reset"
    assert frame.evaluate("location.hash") == f"#{LESSON}-exercise"
    assert frame.locator("form.checkpoint input[name='choice']").first.is_disabled(), \
        "locked on the lesson page too"
    assert_fits(page.context, frame.url, "the lesson page a checkpoint links to")


def test_the_project_is_submitted_from_the_lms(
        graded_stack: Stack, open_browser, shoot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    stack = graded_stack
    course = state(stack.tool).course.get()
    _, project = course.exercise(PROJECT)
    stack.deep_link([PROJECT])
    page = open_browser(third_party_cookies=True).new_page()
    frame = launch(page, stack, PROJECT, "alice")
    frame.locator("#project-files").wait_for()
    frame.locator(".cm-editor .cm-content").wait_for()
    assert_accessible(page, frame, "project", shoot)
    assert_fits(page.context, frame.url, "the project page")
    assert "Graded: starter/model.py" in frame.locator("#project-files").inner_text()
    with page.expect_download() as download:
        frame.locator("#project-files a", has_text="starter/model.py").click()
    saved = tmp_path / "model.py"
    download.value.save_as(saved)
    assert saved.read_text() == project.starter_code
    with page.expect_download() as folder:
        frame.get_by_role("link", name=re.compile("Download the project folder")).click()
    assert folder.value.suggested_filename == "arrays-audit.zip"

    frame.locator(".cm-content").click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.insert_text(project.solution_code)
    frame.locator("#submit-form button[type=submit]").click()
    graded = frame.locator("article.attempt[data-status='graded']")
    graded.wait_for(timeout=300_000)
    points = f"{project.max_points:g}"
    assert f"{points} / {points}" in graded.inner_text()
    assert graded.locator("tr.check").count() >= 2, "each stage's checks are listed"
    assert_accessible(page, frame, "project-graded", shoot)
    # The score reaches the LMS gradebook through the outbox (delivered as the consumer does).
    deadline, scores = time.monotonic() + 60, []
    while time.monotonic() < deadline and not scores:
        with stack.db() as session:
            deliver_due(session, rules=outbound.policy(state(stack.tool).config))
        scores = [s for s in stack.gradebook()["scores"] if s["userId"] == "alice"]
        time.sleep(0.5)
    with stack.db() as session:
        outbox = [(o.status, o.score, o.last_error) for o in session.scalars(
            select(ScoreOutbox))]
    assert scores and scores[-1]["scoreGiven"] == project.max_points, (scores, outbox)


def test_my_learning_zip_reimports_notes_and_code_into_a_fresh_deployment(
        graded_stack: Stack, open_browser, shoot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    stack = graded_stack
    course = state(stack.tool).course.get()
    lesson, exercise = course.exercise(EXERCISE)
    stack.deep_link([LESSON])
    page = open_browser(third_party_cookies=True).new_page()
    frame = launch(page, stack, LESSON, "alice")
    panel = frame.locator("[data-exercise-panel][data-prefix='x-mask-tail-']")
    panel.locator(".cm-editor .cm-content").wait_for()
    panel.locator(".cm-content").click()
    page.keyboard.press("ControlOrMeta+a")
    shown = exercise.for_variant()
    code = submission_for(lesson, shown, shown.solution_code)
    page.keyboard.insert_text(code)
    panel.locator("button[type=submit]").click()
    panel.locator("article.attempt[data-status='graded']").wait_for(timeout=300_000)
    note = "Predicted the tail would be masked; it was, and the shape stayed (8,)."
    frame.get_by_role("link", name="My learning").click()
    frame = tool_frame(page)
    frame.locator(f"#note-{LESSON}").fill(note)
    frame.get_by_role("button", name=re.compile("^Save notes for")).click()
    frame = tool_frame(page)
    assert frame.locator(f"#note-{LESSON}").input_value() == note
    with page.expect_download() as download:
        frame.get_by_role("link", name="Export my work (ZIP)").click()
    saved = tmp_path / "my-learning.zip"
    download.value.save_as(saved)

    fresh = build_stack(f"sqlite:///{tmp_path / 'fresh.sqlite3'}", tmp_path / "fresh",
                        packaged_course=True)
    try:
        fresh.deep_link([LESSON])
        there = open_browser(third_party_cookies=True).new_page()
        frame = launch(there, fresh, LESSON, "alice")
        frame.get_by_role("link", name="My learning").click()
        frame = tool_frame(there)
        assert frame.locator(f"#note-{LESSON}").input_value() != note
        for time in ("first", "second"):
            frame.locator("input[name='portfolio']").set_input_files(str(saved))
            frame.get_by_role("button", name="Import", exact=True).click()
            frame = tool_frame(there)
            said = "nothing changed" if time == "second" else "Imported, and labelled"
            frame.locator("#import-notice", has_text=said).wait_for()
            assert frame.locator("section.imported").count() == 1, f"{time} import: one record"
            assert frame.locator(f"#note-{LESSON}").input_value() == note, "the note is back"
        # Another LMS (a fresh devlms): the record says this tool cannot confirm whose it is.
        assert "Not confirmed as yours" in frame.locator("section.imported").inner_text()
        assert_accessible(there, frame, "my-learning-reimported", shoot)
        frame.locator("section.imported a", has_text="main.py").first.click()
        frame = tool_frame(there)
        shown_code = frame.locator("pre.imported-file").inner_text()
        assert "def mask_tail" in shown_code or shown.solution_code.strip()[:40] in shown_code
        assert_accessible(there, frame, "imported-file", shoot)
    finally:
        fresh.tool_server.stop()
        fresh.lms_server.stop()
        state(fresh.tool).engine.dispose()


def test_a_lesson_table_fits_a_320_px_screen(
        graded_stack: Stack, open_browser) -> None:  # type: ignore[no-untyped-def]
    """arrays-01's table was 14 px wider than its box at 320 px: its cells now wrap."""
    stack = graded_stack
    stack.deep_link(["arrays-01"])
    page = open_browser(third_party_cookies=True).new_page()
    frame = launch(page, stack, "arrays-01", "alice")
    frame.locator("main table").first.wait_for()
    assert_fits(page.context, frame.url, "the arrays-01 lesson page")
    narrow = page.context.new_page()
    narrow.set_viewport_size({"width": 320, "height": 640})
    narrow.goto(frame.url)
    widths = narrow.evaluate("""() => [...document.querySelectorAll('main table')]
        .map(t => [t.scrollWidth, t.clientWidth])""")
    narrow.close()
    assert widths and all(inner <= box for inner, box in widths), widths
