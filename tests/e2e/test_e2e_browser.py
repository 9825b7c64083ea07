"""The flows people meet, in a real Chromium, on the local stack (deploy/local/stack.sh):
the tool behind nginx with TLS at https://localhost, the LMS at http://127.0.0.1, so the tool is
a third-party frame inside the LMS page, as in production.

Cookie choice (documented in docs/CONFIGURATION.md, "Demo"): the stack uses TLS with a
self-signed certificate (Chromium runs with --ignore-certificate-errors), because only over
https are the tool's cookies `SameSite=None; Secure; Partitioned`. Chromium 156 blocks
third-party cookies by default but keeps a partitioned (CHIPS) cookie inside the frame, so the
learner flow stays in the iframe both with third-party cookies allowed and with Chromium's
default; a profile that blocks the tool's cookies inside the LMS frame altogether gets the
tool's "open in a new window" fallback."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import requests
from course_answers import right_choice

from course import submission_for
from devlms.browser import Browser
from lti_service.submissions.panel import graded_file
from tests.packaged import packaged_course

pytestmark = pytest.mark.browser

LESSON = "arrays-04"
CHECKPOINT = "arrays-04.checkpoint"
EXERCISE = "arrays-04.exercise.mask-tail"
PROJECT = "project.arrays-audit"
PLACED = [LESSON, CHECKPOINT, EXERCISE, PROJECT]


def exercise_points(content_id: str = EXERCISE) -> float:
    found = packaged_course().exercise(content_id)
    assert found is not None, f"{content_id} is not in the course"
    return found[1].max_points


def solution_file(tmp_path: Path, frame) -> Path:  # type: ignore[no-untyped-def]
    """The reference solution in the variant the learner's page shows (its starter), as the
    whole main.py a learner uploads (CONTRACTS.md 2)."""
    course = packaged_course()
    found = course.exercise(EXERCISE)
    assert found is not None, f"{EXERCISE} is not in the course"
    lesson, exercise = found
    shown = frame.locator("#source").input_value().strip()
    # The box holds the whole graded file: the lesson's code, then the variant's starter.
    variant = next(v for v in exercise.variants
                   if graded_file(lesson, exercise.for_variant(v)).strip() == shown)
    path = tmp_path / "main.py"
    path.write_text(submission_for(lesson, exercise, exercise.for_variant(variant).solution_code))
    return path


def links(stack) -> dict[str, dict]:  # type: ignore[no-untyped-def]
    """content id -> the LMS resource link that holds it."""
    return {link["custom"].get("content_id"): link for link in stack.gradebook()["links"]}


def ensure_placed(stack) -> dict[str, dict]:  # type: ignore[no-untyped-def]
    """The instructor's placements; made over HTTP if the instructor test has not run."""
    placed = links(stack)
    if not set(PLACED) <= set(placed):
        teacher = Browser()
        # The stack's certificate; trust_env off, or REQUESTS_CA_BUNDLE would win over verify.
        teacher.http.trust_env = False
        teacher.http.verify = stack.ca_bundle
        picker = teacher.get(stack.lms_url + "/deep-link?user=teacher")
        teacher.submit(picker, data={"content_id": PLACED})
        placed = links(stack)
    assert set(PLACED) <= set(placed), placed
    return placed


def scores(stack, user: str, resource: str) -> list[dict]:  # type: ignore[no-untyped-def]
    return [row for row in stack.gradebook()["scores"]
            if row["userId"] == user and row["resourceId"] == resource]


def wait_for_score(stack, user: str, resource: str, timeout: float = 90.0) -> dict:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = scores(stack, user, resource)
        if found:
            return found[0]
        time.sleep(0.5)
    raise AssertionError(f"no score for {user} on {resource} in the LMS after {timeout:.0f}s")


def launch(page, stack, content_id: str, user: str):  # type: ignore[no-untyped-def]
    """From the LMS course page, open an activity as `user`: the tool loads in the iframe."""
    page.goto(stack.lms_url + "/")
    page.locator(f"li[data-content='{content_id}'] a.launch[data-user='{user}']").click()
    page.wait_for_url("**/frame?**")
    return page.frame_locator("#tool")


def tool_view(page, frame, stack):  # type: ignore[no-untyped-def]
    """Where the tool ended up: in the frame, or (cookie blocked) in a window opened from it."""
    frame.locator("body").wait_for()
    if frame.locator("#new-window").count():
        with page.context.expect_page() as popup:
            frame.locator("#new-window").click()
        window = popup.value
        window.wait_for_load_state()
        return window, window.locator("html")
    return page, frame.locator("html")


def answer_checkpoint(view, key: str) -> None:
    form = view.locator("form.checkpoint")
    form.locator(f"input[name='choice'][value='{key}']").check()
    form.locator("button[type=submit], input[type=submit]").first.click()
    view.locator("#checkpoint-result").wait_for()


def test_instructor_places_content_by_deep_linking(local_stack, open_browser, shoot) -> None:  # type: ignore[no-untyped-def]
    browser = open_browser(third_party_cookies=True)
    page = browser.new_page()
    page.goto(local_stack.lms_url + "/")
    page.locator("#add-content").click()
    picker = page.frame_locator("#tool")
    for content_id in PLACED:
        picker.locator(f"input[name='content_id'][value='{content_id}']").check()
    shoot(page, "1-picker-in-lms-frame")
    picker.locator("button[type=submit]").click()
    picker.locator("#added li").first.wait_for()
    assert picker.locator("#added li").count() == len(PLACED)
    shoot(page, "2-added")

    page.goto(local_stack.lms_url + "/")
    for content_id in PLACED:
        assert page.locator(f"li[data-content='{content_id}']").count() >= 1, content_id
    # Gradebook columns: the checkpoint and the exercise are graded, the lesson is not.
    page.goto(local_stack.lms_url + "/gradebook")
    columns = page.locator("ul").last.inner_text()
    assert f"({CHECKPOINT}, checkpoint, max 1" in columns
    assert f"({EXERCISE}, exercise, max {exercise_points()}" in columns
    assert f"({PROJECT}, project, max {exercise_points(PROJECT)}" in columns
    shoot(page, "3-gradebook-columns")


def test_learner_flow_inside_the_lms_iframe(local_stack, open_browser, shoot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    ensure_placed(local_stack)
    browser = open_browser(third_party_cookies=True)
    page = browser.new_page()

    # The lesson opens inside the LMS page, and the checkpoint is answered there.
    frame = launch(page, local_stack, CHECKPOINT, "alice")
    frame.locator("form.checkpoint").wait_for()
    assert frame.locator("#new-window").count() == 0, "the launch cookie was refused in the frame"
    assert "Immutable updates and indexing" in frame.locator("body").inner_text()
    shoot(page, "1-lesson-in-iframe")
    answer_checkpoint(frame, right_choice(LESSON, frame.locator("form.checkpoint").inner_text()))
    assert "correct" in (frame.locator("#checkpoint-result").get_attribute("class") or "").split()
    shoot(page, "2-checkpoint-answered")
    score = wait_for_score(local_stack, "alice", CHECKPOINT)
    assert (score["scoreGiven"], score["scoreMaximum"]) == (1.0, 1.0)

    # The exercise: upload main.py, the grader runs it, the page shows the graded attempt.
    frame = launch(page, local_stack, EXERCISE, "alice")
    frame.locator("input[name='main_py']").set_input_files(str(solution_file(tmp_path, frame)))
    frame.get_by_role("button", name="Submit for grading").click()
    frame.locator("article.attempt[data-status='graded']").wait_for(timeout=120_000)
    points = exercise_points()
    assert f"{points:g} / {points:g}" in frame.locator("article.attempt").first.inner_text()
    frame.locator("article.attempt").first.scroll_into_view_if_needed()
    shoot(page, "3-exercise-graded")

    page.goto(local_stack.lms_url + "/gradebook")
    wait_for_score(local_stack, "alice", EXERCISE)
    page.reload()
    row = page.locator(f"tr.score[data-user='alice'][data-resource='{EXERCISE}']")
    assert f"{points} / {points}" in row.inner_text()
    shoot(page, "4-lms-gradebook")


def test_second_learner_sees_none_of_the_first_ones_work(local_stack, open_browser, shoot,
                                                          tmp_path) -> None:  # type: ignore[no-untyped-def]
    ensure_placed(local_stack)
    page = open_browser(third_party_cookies=True).new_page()
    frame = launch(page, local_stack, EXERCISE, "alice")
    frame.locator("input[name='main_py']").set_input_files(str(solution_file(tmp_path, frame)))
    frame.get_by_role("button", name="Submit for grading").click()
    frame.locator("article.attempt").first.wait_for()

    bob = open_browser(third_party_cookies=True).new_page()
    frame = launch(bob, local_stack, EXERCISE, "bob")
    frame.locator("#history").wait_for()
    history = frame.locator("#history").inner_text()
    assert "No attempts yet." in history and frame.locator("article.attempt").count() == 0
    # The box holds the starter, never another learner's upload.
    found = packaged_course().exercise(EXERCISE)
    assert found is not None
    assert "mask_tail(x):\n    return x.at" not in frame.locator("#source").input_value()
    frame = launch(bob, local_stack, CHECKPOINT, "bob")
    frame.locator("form.checkpoint").wait_for()
    assert frame.locator("#checkpoint-result").count() == 0
    assert "Checkpoint attempts: 0 of" in frame.locator("p.attempts").inner_text()
    shoot(bob, "bob-sees-a-fresh-activity")


def test_learner_flow_when_the_browser_blocks_third_party_cookies(local_stack, open_browser,
                                                                  shoot) -> None:  # type: ignore[no-untyped-def]
    """Chromium's default: third-party cookies blocked. The tool's state cookie is partitioned
    (CHIPS), so the launch completes inside the LMS frame, with no new window."""
    ensure_placed(local_stack)
    page = open_browser(third_party_cookies=False).new_page()
    frame = launch(page, local_stack, CHECKPOINT, "bob")
    frame.locator("#new-window, form.checkpoint").first.wait_for()
    assert frame.locator("#new-window").count() == 0, "the partitioned cookie was refused"
    shoot(page, "1-lesson-in-the-lms-frame")
    answer_checkpoint(frame, right_choice(LESSON, frame.locator("form.checkpoint").inner_text()))
    assert "correct" in (frame.locator("#checkpoint-result").get_attribute("class") or "").split()
    shoot(page, "2-answered-in-frame")
    score = wait_for_score(local_stack, "bob", CHECKPOINT)
    assert score["scoreGiven"] == 1.0


def test_new_window_fallback_when_the_frame_refuses_every_cookie(local_stack, open_browser,
                                                                 shoot) -> None:  # type: ignore[no-untyped-def]
    """A browser that refuses the tool's cookies inside the LMS page, partitioned or not (a
    site exception in Chromium's settings), still works: the tool offers its own window."""
    ensure_placed(local_stack)
    browser = open_browser(third_party_cookies=False,
                           block_cookies_of=(local_stack.tool_url, local_stack.lms_url))
    page = browser.new_page()
    frame = launch(page, local_stack, CHECKPOINT, "alice")
    frame.locator("#new-window, form.checkpoint").first.wait_for()
    assert frame.locator("#new-window").count() == 1, "the frame kept a cookie it must refuse"
    shoot(page, "1-new-window-offered")
    window, view = tool_view(page, frame, local_stack)
    assert window is not page
    view.locator("form.checkpoint").wait_for()
    assert "Immutable updates and indexing" in view.locator("body").inner_text()
    shoot(window, "2-lesson-in-own-window")


def test_tool_cookies_are_partitioned_behind_tls(local_stack) -> None:  # type: ignore[no-untyped-def]
    """The cookie attributes themselves: the state cookie at login and the session cookie at
    launch are `SameSite=None; Secure; Partitioned` (a header check, no browser)."""
    placed = ensure_placed(local_stack)
    learner = Browser()
    learner.http.trust_env = False
    learner.http.verify = local_stack.ca_bundle
    page = learner.get(f"{local_stack.lms_url}/launch/{placed[CHECKPOINT]['id']}?user=alice")
    assert page.status_code == 200, page.text[:500]
    set_cookies = [(r.url, c) for r in learner.history + [h for r in learner.history
                                                          for h in r.history]
                   for c in r.raw.headers.getlist("Set-Cookie")]
    state = [c for url, c in set_cookies if c.startswith("lti1p3-")]
    session = [c for url, c in set_cookies if c.startswith("session=")]
    assert state and session, set_cookies
    for cookie in state + session:
        attributes = {part.strip().lower() for part in cookie.split(";")}
        assert {"secure", "samesite=none", "partitioned", "httponly"} <= attributes, cookie


def test_score_pending_while_the_lms_is_down_arrives_when_it_is_back(
    local_stack, open_browser, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    placed = ensure_placed(local_stack)
    page = open_browser(third_party_cookies=True).new_page()
    frame = launch(page, local_stack, EXERCISE, "bob")
    frame.locator("input[name='main_py']").wait_for()
    assert not scores(local_stack, "bob", EXERCISE)

    local_stack.run("down", "lms")
    with pytest.raises(requests.ConnectionError):
        requests.get(local_stack.lms_url + "/", timeout=5)
    frame.locator("input[name='main_py']").set_input_files(str(solution_file(tmp_path, frame)))
    frame.get_by_role("button", name="Submit for grading").click()
    # Graded by the tool while the LMS is away: the score waits in the outbox.
    frame.locator("article.attempt[data-status='graded']").wait_for(timeout=120_000)
    # The consumer tried to post it and the LMS was not there (its log says so, by row id only).
    consumer_log = Path(local_stack.env["PATHWAYS_STACK_DIR"]) / "logs" / "consumer.log"
    deadline = time.monotonic() + 60
    while "not delivered (try 1)" not in consumer_log.read_text(errors="replace"):
        assert time.monotonic() < deadline, "the consumer never tried the score"
        time.sleep(0.5)
    local_stack.run("up", "lms")
    score = wait_for_score(local_stack, "bob", EXERCISE, timeout=120)
    assert score["scoreGiven"] == score["scoreMaximum"] == exercise_points()
    assert links(local_stack)[EXERCISE]["id"] == placed[EXERCISE]["id"]


def test_project_model_py_is_graded_by_hidden_stage_checks(local_stack, open_browser, shoot,
                                                           tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The arrays-audit project from the LMS: the learner uploads their model.py, the hidden
    stage checks call its functions on hidden batches, and the score reaches the gradebook."""
    ensure_placed(local_stack)
    found = packaged_course().exercise(PROJECT)
    assert found is not None
    project = found[1]
    model = tmp_path / "model.py"
    model.write_text(project.solution_code)
    page = open_browser(third_party_cookies=True).new_page()
    frame = launch(page, local_stack, PROJECT, "alice")
    assert "TODO 1 (masked_count" in frame.locator("#source").input_value()  # the starter
    frame.locator("input[name='main_py']").set_input_files(str(model))
    frame.get_by_role("button", name="Submit for grading").click()
    frame.locator("article.attempt[data-status='graded']").wait_for(timeout=120_000)
    points = exercise_points(PROJECT)
    graded = frame.locator("article.attempt").first.inner_text()
    assert f"{points:g} / {points:g}" in graded and "stage 2" in graded
    shoot(page, "project-graded")
    score = wait_for_score(local_stack, "alice", PROJECT)
    assert score["scoreGiven"] == score["scoreMaximum"] == points
