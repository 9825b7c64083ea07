"""Every page the tool serves shares one layout and stylesheet; the exercise page renders math,
holds the whole graded file and loads the editor; the picker groups items by phase and lesson
and places lessons as ungraded links unless asked for a completion score."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from urllib.parse import urljoin

import pytest
import requests
from lti_stack import Stack
from tool_pages import CHECKPOINT, EXERCISE, token

from devlms.browser import Browser, forms
from lti_service.core.extensions import state
from lti_service.submissions.panel import graded_file

MATH_EXERCISE = "arrays-04.exercise.matrix-column"  # its prompt and hints hold inline math

LAYOUT_MARKS = ('class="site-header"', 'id="theme-toggle"', "/static/tool.css",
                "prefers-color-scheme: dark")


def _assert_layout(page: requests.Response, what: str) -> None:
    missing = [m for m in LAYOUT_MARKS if m not in page.text]
    assert not missing, f"{what} lacks the shared layout: {missing}"


def _lesson_of(browser: Browser, checkpoint_page: requests.Response) -> requests.Response:
    """The whole lesson a checkpoint placement's own page links to (its section)."""
    found = re.search(r'<a href="([^"]*/lesson\?[^"]*)">Read the lesson section',
                      checkpoint_page.text)
    assert found, "the checkpoint page links to its lesson section"
    return browser.get(urljoin(checkpoint_page.url, html.unescape(found[1])))


def _textarea(page: requests.Response) -> str:
    found = re.search(r'<textarea id="source"[^>]*>(.*?)</textarea>', page.text, re.S)
    assert found, "the exercise page has no #source box"
    return html.unescape(found.group(1))


def test_every_tool_page_has_the_one_layout(sqlite_stack: Stack) -> None:
    stack = sqlite_stack
    teacher = Browser()
    picker = teacher.get(stack.lms_url + "/deep-link?user=teacher")
    _assert_layout(picker, "the picker")
    checkpoint, exercise = stack.deep_link([CHECKPOINT, EXERCISE])
    alice = Browser()
    lesson = stack.launch(alice, checkpoint["id"], "alice")
    _assert_layout(lesson, "the lesson page")
    assert lesson.text.count("<style>") == 1, "the course stylesheet is inlined once"
    _assert_layout(stack.launch(alice, exercise["id"], "alice"), "the exercise page")
    view = requests.get(stack.tool_url + "/instructor/class",
                        params={"lt": token(stack.launch(Browser(), checkpoint["id"], "teacher"))},
                        timeout=30)
    _assert_layout(view, "the class view")
    refused = requests.get(stack.tool_url + "/learn/1", timeout=30)
    assert refused.status_code in (401, 403)
    _assert_layout(refused, "the message page")
    for asset in ("tool.css", "editor.js", "exercise.js", "picker.js"):
        got = requests.get(f"{stack.tool_url}/static/{asset}", timeout=30)
        assert got.status_code == 200 and len(got.content) > 500, asset


def test_exercise_box_holds_the_whole_graded_file_and_it_runs(sqlite_stack: Stack) -> None:
    stack = sqlite_stack
    link = stack.deep_link([EXERCISE])[0]
    page = stack.launch(Browser(), link["id"], "alice")
    lesson, exercise = state(stack.tool).course.get().exercise(EXERCISE)
    shown = _textarea(page)
    assert shown == graded_file(lesson, exercise)
    assert shown.startswith(lesson.main_code.rstrip("\n"))
    assert shown.rstrip().endswith(exercise.starter_code.rstrip())
    assert re.search(r'<textarea id="source"[^>]*data-editor', page.text), "no editor hook"
    assert "/static/editor.js" in page.text and "/static/exercise.js" in page.text
    submit_form = next(f for f in forms(page.text)[0] if f.action.endswith("/submit"))
    assert {k for k, _ in submit_form.fields} >= {"lt", "csrf_token", "main_py"}
    # The file as shown runs: the exercise code sees the lesson's names (x is defined).
    ran = subprocess.run([sys.executable, "-c", shown], capture_output=True, text=True,
                         timeout=120, env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert exercise.starter_code.strip() not in lesson.main_code


def test_picker_groups_by_phase_and_lesson_and_places_lessons_ungraded(
        sqlite_stack: Stack) -> None:
    stack = sqlite_stack
    teacher = Browser()
    picker = teacher.get(stack.lms_url + "/deep-link?user=teacher")
    course = state(stack.tool).course.get()
    phase = course.phases[0]
    assert f'<fieldset class="phase" id="phase-{phase.id}">' in picker.text
    assert 'name="lesson" value="arrays-04"' in picker.text
    assert "3 points" in picker.text and "ungraded link" in picker.text
    assert "Zero the last two entries with a mask." in picker.text, "one-line description"
    before = set(stack.lms_store.links)
    done = teacher.submit(picker, data={"lesson": "arrays-04"})
    assert done.status_code == 200, done.text[:400]
    added = {v.custom["content_id"]: v for k, v in stack.lms_store.links.items()
             if k not in before}
    assert set(added) == {"arrays-04", CHECKPOINT, EXERCISE}
    assert added["arrays-04"].lineitem_id is None, "a lesson is an ungraded link"
    items = stack.lms_store.lineitems
    assert items[added[CHECKPOINT].lineitem_id]["scoreMaximum"] == 1.0
    assert items[added[EXERCISE].lineitem_id]["scoreMaximum"] == 3.0

    picker = teacher.get(stack.lms_url + "/deep-link?user=teacher")
    before = set(stack.lms_store.links)
    teacher.submit(picker, data={"content_id": "arrays-04", "graded_lessons": "on"})
    (graded,) = [v for k, v in stack.lms_store.links.items() if k not in before]
    assert graded.lineitem_id is not None, "asked for a completion score: a line item"
    assert items[graded.lineitem_id]["scoreMaximum"] == 1.0


def test_real_course_pages_render_math_titles_and_position(real_stack: Stack) -> None:
    stack = real_stack
    course = state(stack.tool).course.get()
    lesson, exercise = course.exercise(MATH_EXERCISE)
    assert "$" in exercise.prompt, "the content this test reads has inline math"
    cp_link, ex_link = stack.deep_link([CHECKPOINT, MATH_EXERCISE])
    page = stack.launch(Browser(), ex_link["id"], "alice")
    prompt = page.text.split('<div class="prompt">', 1)[1].split("</div>", 1)[0]
    assert "<math" in prompt and "$" not in prompt, prompt
    assert "Key functions and syntax" in page.text
    assert all(f"Show hint {n}" in page.text or "Show a hint" in page.text
               for n in range(1, len(exercise.hints) + 1))
    reader = Browser()
    lesson_page = _lesson_of(reader, stack.launch(reader, cp_link["id"], "alice"))
    phase = next(p for p in course.phases if p.id == lesson.phase_id)
    assert f"Lesson {lesson.order} of {len(phase.lessons)}" in lesson_page.text
    before = course.lesson(lesson.prerequisites[0])
    assert before is not None
    text = html.unescape(re.sub(r"<[^>]+>", "", lesson_page.text))
    assert f"Before this: {before.title}." in text


def test_checkpoint_difficulty_counts_each_learners_first_answer() -> None:
    from lti_service.checkpoints.models import CheckpointAttempt
    from lti_service.instructor.service.classview import first_wrong_share

    def attempt(user: int, number: int, correct: bool) -> CheckpointAttempt:
        return CheckpointAttempt(placement_id=1, user_id=user, checkpoint_id=CHECKPOINT,
                                 choice="a" if correct else "b", correct=correct,
                                 attempt_number=number)

    # Learner 1: wrong then right; learner 2: right first; learner 3: wrong only.
    tried = [attempt(1, 2, True), attempt(1, 1, False), attempt(2, 1, True), attempt(3, 1, False)]
    assert first_wrong_share(tried) == pytest.approx(2 / 3)
    assert first_wrong_share([]) is None


def test_exercise_histogram_counts_each_learners_best_attempt() -> None:
    from lti_service.instructor.service.classview import outcome_histogram
    from lti_service.submissions.models import Submission

    def sub(user: int, status: str, score: float | None) -> Submission:
        return Submission(placement_id=1, user_id=user, exercise_id=EXERCISE, attempt_number=1,
                          source="", source_sha256="", status=status, score=score,
                          max_score=3.0 if score is not None else None)

    subs = [sub(1, "graded", 1.0), sub(1, "graded", 3.0),  # best: full marks
            sub(2, "graded", 0.0), sub(2, "queued", None),  # best: zero
            sub(3, "not_gradable", None), sub(4, "running", None), sub(5, "graded", 2.0)]
    assert dict(outcome_histogram(subs)) == {"full marks": 1, "partial": 1, "zero": 1,
                                             "not gradable": 1, "waiting": 1}


def test_instructors_get_a_class_view_link_on_every_page_learners_do_not(
        sqlite_stack: Stack) -> None:
    stack = sqlite_stack
    (link,) = stack.deep_link([CHECKPOINT])
    teacher = stack.launch(Browser(), link["id"], "teacher")
    nav = teacher.text.split('class="tool-nav"', 1)[1].split("</nav>", 1)[0]
    href = next(html.unescape(h) for h in re.findall(r'href="([^"]+)"', nav)
                if h.startswith("/instructor/class?lt="))
    view = requests.get(stack.tool_url + href, timeout=30)
    assert view.status_code == 200 and "class view" in view.text
    learner = stack.launch(Browser(), link["id"], "alice")
    assert "/instructor/class" not in learner.text and "Class view" not in learner.text


def test_lms_lesson_page_has_the_seeds_parts_and_they_resolve(real_stack: Stack) -> None:
    stack = real_stack
    course = state(stack.tool).course.get()
    lesson = course.lesson("arrays-04")
    phase = next(p for p in course.phases if p.id == lesson.phase_id)
    (link,) = stack.deep_link([CHECKPOINT])
    alice = Browser()
    page = _lesson_of(alice, stack.launch(alice, link["id"], "alice"))
    text = html.unescape(re.sub(r"<[^>]+>", "", page.text))
    assert "Check:" in text and "Open full-size figure" in text
    assert "Verified on local CPU" in text
    if phase.project is not None:
        assert f"Integration project: {phase.project.title}" in text
    hrefs = [html.unescape(h) for h in re.findall(r'href="([^"]+)"', page.text)]
    setup = next(h for h in hrefs if "/setup?" in h and "#" not in h)
    got = alice.http.get(stack.tool_url + setup, timeout=30)
    assert got.status_code == 200
    _assert_layout(got, "the setup help page")
    for part in ("macOS / Linux", "Windows PowerShell", "Cloud TPU VM"):
        assert part in got.text
    guide = alice.http.get(stack.tool_url + next(h for h in hrefs if "/guide?" in h), timeout=30)
    assert guide.status_code == 200
    _assert_layout(guide, "the phase study guide")
    for part in ("Preparation", "Milestones", "Project evidence", lesson.title):
        assert part in guide.text, part
    lesson_text = next(h for h in hrefs if "/lesson.md?" in h)
    md = alice.http.get(stack.tool_url + lesson_text, timeout=30)
    assert md.status_code == 200 and md.text == (lesson.dir / "lesson.md").read_text()
    assert requests.get(stack.tool_url + lesson_text.split("?")[0], timeout=30).status_code == 401


@pytest.mark.parametrize("phase_id", ["02-transformations", "03-randomness"])
def test_a_phase_is_in_the_picker_and_its_lesson_pages_show_its_study_guide(
        real_stack: Stack, phase_id: str) -> None:
    """Phases 02 and 03 as an instructor places them: lessons, checkpoints and project in the
    picker; the placed project opens with model.py to submit (its grading through the real
    queue is tests/grader_worker/test_queue.py, which grades every gradable); the lesson page
    links the phase's study guide."""
    stack = real_stack
    course = state(stack.tool).course.get()
    phase = next(p for p in course.phases if p.id == phase_id)
    assert phase.project is not None and phase.project.exercise is not None
    picker = Browser().get(stack.lms_url + "/deep-link?user=teacher")
    assert f'<fieldset class="phase" id="phase-{phase_id}">' in picker.text
    for lesson in phase.lessons:
        assert f'name="lesson" value="{lesson.id}"' in picker.text
        assert f'name="content_id" value="{lesson.checkpoint.id}"' in picker.text
    assert f'name="content_id" value="{phase.project.id}"' in picker.text
    assert f"{phase.project.exercise.max_points:g} points" in picker.text
    link, project_link = stack.deep_link([phase.lessons[-1].checkpoint.id,
                                          phase.project.id])
    alice = Browser()
    project_page = stack.launch(alice, project_link["id"], "alice")
    assert project_page.status_code == 200, project_page.text[:300]
    assert "Submit model.py" in project_page.text, "the graded file, named as it is"
    assert phase.project.title in html.unescape(project_page.text)
    assert _textarea(project_page).strip() == phase.project.exercise.starter_code.strip()
    page = _lesson_of(alice, stack.launch(alice, link["id"], "alice"))
    text = html.unescape(re.sub(r"<[^>]+>", "", page.text))
    assert f"Integration project: {phase.project.title}" in text
    href = next(html.unescape(h) for h in re.findall(r'href="([^"]+)"', page.text)
                if "/guide?" in h)
    guide = alice.http.get(stack.tool_url + href, timeout=30)
    assert guide.status_code == 200
    _assert_layout(guide, f"the {phase_id} study guide")
    shown = " ".join(html.unescape(re.sub(r"<[^>]+>", "", guide.text)).split())
    assert f"{phase.title}: study guide" in shown
    for part in ("Preparation", "Milestones", "Project evidence", phase.project.title,
                 *(lesson.title for lesson in phase.lessons),
                 *(f"Stage {s.number}: {s.title}" for s in phase.project.stages)):
        assert part in shown, part


def test_an_ungraded_lesson_records_answers_but_queues_no_score(sqlite_stack: Stack) -> None:
    from sqlalchemy import func, select

    from lti_service.checkpoints.models import CheckpointAttempt
    from lti_service.outbox.models import ScoreOutbox

    stack = sqlite_stack
    (lesson_link,) = stack.deep_link(["arrays-04"])
    alice = Browser()
    page = stack.launch(alice, lesson_link["id"], "alice")
    assert "not in your LMS gradebook" in page.text
    form = next(f for f in forms(page.text)[0] if "checkpoint" in f.attrs.get("class", ""))
    answered = alice.submit(page, form, data={"choice": "a"})
    assert answered.status_code == 200 and 'id="checkpoint-result"' in answered.text
    with stack.db() as session:
        assert session.scalar(select(func.count()).select_from(CheckpointAttempt)) == 1
        assert session.scalar(select(func.count()).select_from(ScoreOutbox)) == 0

    # Placed with a completion score, the same lesson's answer is queued for the gradebook.
    teacher = Browser()
    picker = teacher.get(stack.lms_url + "/deep-link?user=teacher")
    before = set(stack.lms_store.links)
    teacher.submit(picker, data={"content_id": "arrays-04", "graded_lessons": "on"})
    (graded,) = [k for k in stack.lms_store.links if k not in before]
    page = stack.launch(alice, graded, "alice")
    assert "not in your LMS gradebook" not in page.text
    form = next(f for f in forms(page.text)[0] if "checkpoint" in f.attrs.get("class", ""))
    alice.submit(page, form, data={"choice": "a"})
    with stack.db() as session:
        assert session.scalar(select(func.count()).select_from(ScoreOutbox)) == 1


def test_picker_descriptions_are_one_line_and_never_leave_code_or_math_open() -> None:
    from lti_service.core.content import first_line

    assert first_line("First sentence. Second one.\nMore") == "First sentence."
    assert first_line("\n\n  Lead line\nnext") == "Lead line"
    cut = first_line("Put `weights` then `" + "x" * 200 + "` and more", limit=40)
    assert cut.endswith("…") and cut.count("`") % 2 == 0 and len(cut) <= 40
    cut = first_line("Keep $x$ and $" + "y" * 200 + "$ here", limit=30)
    assert cut.count("$") % 2 == 0
