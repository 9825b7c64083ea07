"""The learner's and the instructor's pages in a real Chromium, inside devlms's LMS iframe: the
tool and the LMS on loopback in this process (the real course, the real sandboxed grader), so
these run without the local stack. axe-core (web/editor's npm install) checks every page for
serious or critical violations in the light and the dark theme; screenshots are artifacts."""

from __future__ import annotations

import re
import sys
import threading
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from sqlalchemy import select

from course import submission_for
from grader_worker.config import load_config
from grader_worker.worker import GraderWorker
from grading_contract.queues import Queues
from lti_service.consumer import Consumer
from lti_service.core.extensions import state
from lti_service.core.models import LmsUser, Placement
from lti_service.outbox.service.delivery import deliver_due
from lti_service.submissions import service
from lti_service.submissions.panel import QUEUES_KEY, graded_file
from lti_service.submissions.settings import GradingSettings

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "lti_service"))  # the service tests' loopback stack
from course_answers import right_choice  # noqa: E402  (tests/e2e is on the path)
from lti_stack import Stack, build_stack  # noqa: E402

pytestmark = pytest.mark.browser
AXE = ROOT / "web" / "editor" / "node_modules" / "axe-core" / "axe.min.js"
LESSON, CHECKPOINT = "arrays-04", "arrays-04.checkpoint"
EXERCISE = "arrays-04.exercise.mask-tail"


def run_graded_stack(tmp_path: Path, *, deliver_scores: bool) -> Iterator[Stack]:
    """devlms + the tool (real course) + one grader worker and the results consumer in a
    thread; with ``deliver_scores``, the consumer's score delivery too (under the tool's own
    outbound policy: devlms is on loopback, which the tool's config allows)."""
    if not AXE.is_file():
        pytest.fail("axe-core is not installed: cd web/editor && npm ci (scripts/test.sh does it)")
    stack = build_stack(f"sqlite:///{tmp_path / 'tool.sqlite3'}", tmp_path,
                        packaged_course=True)
    config = load_config({"PATHWAYS_VAR_DIR": str(tmp_path / "queue-var"),
                          "PATHWAYS_GRADER_HEARTBEAT_S": "0.5"})
    queues = Queues(config)
    stack.tool.extensions[QUEUES_KEY] = queues
    worker = GraderWorker(config, queues)
    consumer = Consumer(state(stack.tool).sessions, queues, GradingSettings(),
                        deliver=partial(deliver_due, rules=stack.rules))
    stop = threading.Event()

    def work() -> None:
        while not stop.is_set():
            busy = worker.queues.process_one(worker.queues.grading)
            consumer.drain()
            if deliver_scores:
                consumer.deliver_scores()
            if not busy:
                time.sleep(0.2)

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    yield stack
    stop.set()
    thread.join(timeout=60)
    worker.close()
    stack.tool_server.stop()
    stack.lms_server.stop()
    state(stack.tool).engine.dispose()


@pytest.fixture
def graded_stack(tmp_path: Path) -> Iterator[Stack]:
    """Graded; scores stay in the outbox (this test reads results in the tool, not the LMS)."""
    yield from run_graded_stack(tmp_path, deliver_scores=False)


def tool_frame(page):  # type: ignore[no-untyped-def]
    """The tool's frame inside devlms's page, once its document has loaded."""
    page.locator("#tool").wait_for()
    frame = page.frame_locator("#tool")
    frame.locator("main#main").wait_for()
    return page.locator("#tool").element_handle().content_frame()


def axe_violations(frame) -> list[dict]:  # type: ignore[no-untyped-def]
    if not frame.evaluate("typeof window.axe !== 'undefined'"):
        # Evaluated, not added as a <script>: the tool's CSP (script-src 'self') refuses an
        # inline script tag, as it should; DevTools evaluation is outside the page's policy.
        frame.evaluate(AXE.read_text() + "\n;true")
    return frame.evaluate("""() => axe.run(document, {resultTypes: ['violations']}).then(r =>
        r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
         .map(v => ({id: v.id, impact: v.impact, help: v.help,
                     nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))})))""")


def assert_accessible(page, frame, what: str, shoot) -> None:  # type: ignore[no-untyped-def]
    """No serious/critical axe violation in the light theme nor in the dark one."""
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        found = axe_violations(frame)
        shoot(page, f"{what}-{scheme}")
        assert not found, f"{what} ({scheme}): {found}"
    page.emulate_media(color_scheme="light")


def assert_fits(context, url: str, what: str) -> None:  # type: ignore[no-untyped-def]
    """The page is readable 320 px wide: nothing wider than the viewport scrolls the page."""
    narrow = context.new_page()
    narrow.set_viewport_size({"width": 320, "height": 640})
    narrow.goto(url)
    width = narrow.evaluate("document.documentElement.scrollWidth")
    # What sticks out, outside any scroll container (code listings scroll on their own).
    wide = narrow.evaluate("""() => [...document.querySelectorAll('main *')].filter(e => {
        if (e.getBoundingClientRect().right <= 321) return false;
        for (let a = e.parentElement; a; a = a.parentElement) {
            if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(a).overflowX)) return false;
        }
        return true; }).slice(0, 5).map(e => e.outerHTML.slice(0, 120))""")
    narrow.close()
    assert width <= 320, f"{what} is {width}px wide at a 320px viewport: {wide}"


def learners_exercise(stack: Stack, exercise, url: str, sub: str):  # type: ignore[no-untyped-def]
    """The exercise as ``sub`` sees it on the exercise placement ``url`` opened (their variant:
    a reference solution of another variant fails the hidden checks)."""
    placement_id = int(re.search(r"/exercise/(\d+)", url)[1])
    with stack.db() as session:
        placement = session.get(Placement, placement_id)
        user = session.scalar(select(LmsUser).where(LmsUser.sub == sub))
        return exercise.for_variant(service.learner_variant(exercise, placement, user.id))


def launch(page, stack: Stack, content_id: str, user: str):  # type: ignore[no-untyped-def]
    page.goto(stack.lms_url + "/")
    page.locator(f"li[data-content='{content_id}'] a.launch[data-user='{user}']").first.click()
    page.wait_for_url("**/frame?**")
    return tool_frame(page)


def test_instructor_picks_a_whole_lesson_by_keyboard_and_gets_only_graded_columns(
        graded_stack: Stack, open_browser, shoot) -> None:  # type: ignore[no-untyped-def]
    stack = graded_stack
    page = open_browser(third_party_cookies=True).new_page()
    page.goto(stack.lms_url + "/")
    page.locator("#add-content").click()
    picker = tool_frame(page)
    assert_accessible(page, picker, "picker", shoot)
    assert_fits(page.context, picker.url, "the picker")
    whole = picker.locator(f"input[name='lesson'][value='{LESSON}']")
    whole.focus()
    page.keyboard.press("Space")
    for item in (LESSON, CHECKPOINT, EXERCISE):
        assert picker.locator(f"input[name='content_id'][value='{item}']").is_checked(), item
    picker.locator("button[type=submit]").focus()
    page.keyboard.press("Enter")
    page.frame_locator("#tool").locator("#added li").first.wait_for()
    shoot(page, "picker-added")
    columns = stack.gradebook()
    placed = {link["custom"]["content_id"]: link for link in columns["links"]}
    assert {LESSON, CHECKPOINT, EXERCISE} <= set(placed)
    page.goto(stack.lms_url + "/gradebook")
    text = page.locator("body").inner_text()
    assert f"({CHECKPOINT}, checkpoint" in text and f"({EXERCISE}, exercise" in text
    assert f"({LESSON}, lesson" not in text, "a lesson is placed without a gradebook column"
    shoot(page, "gradebook-columns")


def test_learner_answers_and_submits_with_the_editor_then_instructor_reads_the_class(
        graded_stack: Stack, open_browser, shoot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    stack = graded_stack
    stack.deep_link([LESSON, CHECKPOINT, EXERCISE])
    course = state(stack.tool).course.get()
    lesson, exercise = course.exercise(EXERCISE)
    page = open_browser(third_party_cookies=True).new_page()

    # The checkpoint, keyboard only: arrow keys move between choices, Enter submits.
    frame = launch(page, stack, CHECKPOINT, "alice")
    assert_accessible(page, frame, "lesson", shoot)
    assert_fits(page.context, frame.url, "the lesson page")
    first = frame.locator("form.checkpoint input[name='choice']").first
    first.focus()
    page.keyboard.press("Space")
    correct = right_choice(LESSON, frame.locator("form.checkpoint").inner_text())
    while frame.evaluate("document.activeElement.value") != correct:
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    frame = tool_frame(page)
    frame.locator("#checkpoint-result").wait_for()
    assert "correct" in (frame.locator("#checkpoint-result").get_attribute("class") or "").split()
    assert_accessible(page, frame, "checkpoint-answered", shoot)

    # A checkpoint is its own page (issue 24); the whole lesson is one link away.
    frame.get_by_role("link", name=re.compile("^Read the lesson section")).click()
    frame = tool_frame(page)
    frame.locator("section.stage").first.wait_for()

    # The lesson's own pages: setup help and the phase study guide, from the lesson.
    for name, link in (("setup", "Setup help:"), ("guide", "Phase study guide:")):
        frame.get_by_role("link", name=re.compile("^" + link)).first.click()
        frame = tool_frame(page)
        frame.locator("main article").wait_for()
        assert_accessible(page, frame, name, shoot)
        assert_fits(page.context, frame.url, f"the {name} page")
        frame.get_by_role("link", name=re.compile("^Back to")).click()
        frame = tool_frame(page)
        frame.locator("form.checkpoint").wait_for()

    # Stage 4 of a lesson placement's page: the same editor submits the lesson's exercise there
    # (practice: graded with per-check feedback, live, but no counted score for the gradebook).
    frame = launch(page, stack, LESSON, "alice")
    panel = frame.locator("[data-exercise-panel][data-prefix='x-mask-tail-']")
    panel.locator(".cm-editor .cm-content").wait_for()
    assert frame.locator("#x-mask-tail-source").is_hidden(), "the editor replaces the plain box"
    assert_accessible(page, frame, "lesson-submit", shoot)
    panel.locator(".cm-content").click()
    page.keyboard.press("ControlOrMeta+a")
    shown = exercise.for_variant()  # the lesson page's (shared) text is the default variant
    page.keyboard.insert_text(submission_for(lesson, shown, shown.solution_code))
    frame.evaluate("""() => { window.pathwaysSeen = [];
        const live = document.getElementById('x-mask-tail-live-status');
        new MutationObserver(() => window.pathwaysSeen.push(live.textContent))
          .observe(live, {childList: true, subtree: true}); }""")
    panel.locator("button[type=submit]").click()
    practiced = panel.locator("article.attempt[data-status='graded']")
    practiced.wait_for(timeout=180_000)
    seen = frame.evaluate("window.pathwaysSeen")
    assert seen is not None, "the lesson page reloaded: status was not live"
    assert any("queued" in s for s in seen) and "graded" in seen[-1], seen
    points = f"{exercise.max_points:g}"
    assert f"{points} / {points}" in practiced.inner_text()
    assert practiced.locator("tr.check").count() >= 1, "per-check feedback"
    assert "Counted score" not in panel.inner_text(), "practice counts for no gradebook"
    assert_accessible(page, frame, "lesson-submit-graded", shoot)

    # The exercise in the editor: Tab indents inside it, Escape then Tab leaves it.
    frame = launch(page, stack, EXERCISE, "alice")
    frame.locator(".cm-editor .cm-content").wait_for()
    mine = learners_exercise(stack, exercise, frame.url, "alice")
    assert frame.locator("#source").is_hidden(), "the editor replaces the plain box"
    assert_accessible(page, frame, "exercise", shoot)
    assert_fits(page.context, frame.url, "the exercise page")
    frame.locator(".cm-content").click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.insert_text(submission_for(lesson, mine, mine.solution_code))
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.press("Tab")
    in_editor = "!!document.activeElement.closest('.cm-editor')"
    assert frame.evaluate(in_editor), "Tab left the editor"
    assert frame.locator("#source").input_value().endswith("    "), "Tab did not indent"
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert not frame.evaluate(in_editor), "Escape, Tab did not leave the editor"
    frame.evaluate("""() => { window.pathwaysSeen = [];
        new MutationObserver(() => window.pathwaysSeen.push(
            document.getElementById('live-status').textContent))
          .observe(document.getElementById('live-status'), {childList: true, subtree: true}); }""")
    frame.locator("#submit-form button[type=submit]").focus()
    page.keyboard.press("Enter")
    graded = frame.locator("article.attempt[data-status='graded']")
    graded.wait_for(timeout=180_000)
    seen = frame.evaluate("window.pathwaysSeen")
    assert seen is not None, "the page reloaded: status was not live"
    assert any("queued" in s for s in seen) and "graded" in seen[-1], seen
    assert f"{points} / {points}" in graded.inner_text()
    assert graded.locator("tr.check").count() >= 1, "per-check feedback"
    assert "Counted score" in frame.locator("#history").inner_text()
    assert_accessible(page, frame, "exercise-graded", shoot)

    # The draft stays in this browser: opening the exercise again restores it; reset clears it.
    frame = launch(page, stack, EXERCISE, "alice")
    frame.locator(".cm-editor .cm-content").wait_for()
    assert frame.locator("#draft-note").is_visible()
    typed = submission_for(lesson, mine, mine.solution_code)
    assert frame.locator("#source").input_value().startswith(typed.rstrip())
    frame.locator("#draft-reset").click()
    assert frame.locator("#source").input_value() == graded_file(lesson, mine)
    assert frame.locator("#draft-note").is_hidden()

    # My learning lists the work; its ZIP downloads and imports again (as on another course).
    frame.get_by_role("link", name="My learning").click()
    frame = tool_frame(page)
    frame.locator("#my-exercises").wait_for()
    assert f"{points} / {points}" in frame.locator("#my-exercises").inner_text()
    practice = frame.locator("#my-exercises tr[data-where='lesson']")
    assert "(lesson page)" in practice.inner_text()
    assert f"{points} / {points}" in practice.inner_text(), "the lesson-page attempt is listed"
    assert frame.locator(f"#my-lessons tr[data-lesson='{lesson.id}']").count() == 1, \
        "the lesson opened is listed"
    assert "✓" in frame.locator("#my-checkpoints").inner_text()
    assert_accessible(page, frame, "my-learning", shoot)
    with page.expect_download() as download:
        frame.get_by_role("link", name="Export my work (ZIP)").click()
    saved = tmp_path / "my-learning.zip"
    download.value.save_as(saved)
    frame.locator("input[name='portfolio']").set_input_files(str(saved))
    frame.get_by_role("button", name="Import", exact=True).click()
    frame = tool_frame(page)
    frame.locator("section.imported").wait_for()
    assert "1 attempt(s)" in frame.locator("section.imported").inner_text()
    assert_accessible(page, frame, "my-learning-imported", shoot)

    # The instructor's class view (from the tool's own navigation), keyboard reachable.
    frame = launch(page, stack, CHECKPOINT, "teacher")
    frame.get_by_role("link", name="Class view").focus()
    page.keyboard.press("Enter")
    frame = tool_frame(page)
    frame.locator("#roster").wait_for()
    view = frame.locator("main").inner_text()
    assert "answered wrong first" in view and "full marks" in view
    assert frame.locator("tr.learner[data-sub='alice'] .delivery").count() >= 1
    assert_accessible(page, frame, "class-view", shoot)
    assert_fits(page.context, frame.url, "the class view")

    # A message page (an expired or foreign launch) has the same look and passes too.
    frame.goto(re.sub(r"/instructor/class.*", "/learn/999999?lt=not-a-token", frame.url))
    frame.locator("p.message").wait_for()
    assert_accessible(page, frame, "message", shoot)
