"""Issue 24's pages without a browser: a graded checkpoint's own page (lettered choices
recorded with the text and letter shown, the result beside the question, locked after the last
attempt with the reason), the project's page (its files, the one graded file), the picker
(labels, the project under its phase)."""

from __future__ import annotations

import html
import io
import re
import zipfile
from urllib.parse import parse_qs, urljoin, urlparse

import requests
from lti_stack import Stack
from sqlalchemy import select
from tool_pages import CHECKPOINT, hidden

from devlms.browser import Browser
from lti_service.checkpoints.models import CheckpointAttempt
from lti_service.core.extensions import state

PROJECT = "project.arrays-audit"


def _text(page) -> str:  # type: ignore[no-untyped-def]
    return html.unescape(re.sub(r"<[^>]+>", "", page.text))


def _choices(page) -> list[tuple[str, str, str]]:  # type: ignore[no-untyped-def]
    """(letter, key, text) of each choice as the page shows it."""
    return [(letter, key, html.unescape(re.sub(r"<[^>]+>", "", text)).strip())
            for key, letter, text in re.findall(
                r'name="choice" value="([^"]+)"[^>]*>\s*<label for="choice-[A-Z]">'
                r'<span class="choice-label">([A-Z])\.</span>(.*?)</label>', page.text, re.S)]


def test_a_checkpoint_opens_on_its_own_page_and_locks_after_its_last_attempt(
        real_stack: Stack) -> None:
    stack = real_stack
    lesson = state(stack.tool).course.get().lesson("arrays-04")
    (link,) = stack.deep_link([CHECKPOINT], max_attempts=2, counting="best")
    alice = Browser()
    page = stack.launch(alice, link["id"], "alice")
    assert page.status_code == 200
    assert 'class="checkpoint-page"' in page.text
    assert "Stage 1 of 5" not in page.text, "the page is the question, not the whole lesson"
    shown = _choices(page)
    assert [s[0] for s in shown] == list("ABCDEFGH"[:len(shown)]) and len(shown) >= 2
    wrong = next(s for s in shown if s[1] not in lesson.checkpoint.correct_keys)
    # The lesson section it checks is one link away.
    section = re.search(r'<a href="([^"]+/lesson\?[^"]+)">Read the lesson section', page.text)
    assert section and html.unescape(section[1]).endswith("#arrays-04-exercise")
    whole = alice.get(urljoin(page.url, html.unescape(section[1])))
    assert 'id="arrays-04-exercise"' in whole.text

    pid = int(page.url.split("/learn/")[1].split("?")[0])
    answer_url = urljoin(page.url, f"/learn/{pid}/answer")
    fields = hidden(page, "/answer")
    for attempt in (1, 2):
        fields = hidden(page, "/answer") if "/answer" in page.text else fields
        answered = alice.http.post(answer_url, data={**fields, "choice": wrong[1]},
                                   allow_redirects=False, timeout=30)
        assert answered.status_code == 303
        assert answered.headers["Location"].endswith("#checkpoint-result"), "no reload to top"
        page = alice.get(urljoin(page.url, answered.headers["Location"]))
        result = page.text.split('id="checkpoint-result"', 1)[1].split("</section>", 1)[0]
        assert f"Attempt {attempt}: not correct" in result
        assert '<h2 id="checkpoint-result-h">' in page.text, "under the page's h1"
        assert f"{wrong[0]}." in result and wrong[2][:30] in html.unescape(
            re.sub(r"<[^>]+>", "", result)), "the answer as the learner saw it"
    # Locked: the choices are disabled, no button, and the page says why.
    assert re.search(r"<fieldset disabled", page.text)
    assert "Check answer" not in page.text
    assert "Locked: you have used all 2 attempts" in _text(page)
    refused = alice.http.post(answer_url, data={**fields, "choice": wrong[1]},
                              allow_redirects=False, timeout=30)
    assert refused.status_code == 409
    with stack.db() as session:
        rows = list(session.scalars(select(CheckpointAttempt).order_by(
            CheckpointAttempt.attempt_number)))
    assert [(r.choice, r.choice_label, r.choice_text) for r in rows] == \
        [(wrong[1], wrong[0], next(c.text for c in lesson.checkpoint.choices
                                   if c.key == wrong[1]))] * 2


def test_the_project_page_links_its_files_and_names_the_one_graded_file(
        real_stack: Stack) -> None:
    stack = real_stack
    course = state(stack.tool).course.get()
    project = next(p.project for p in course.phases
                   if p.project is not None and p.project.id == PROJECT)
    (link,) = stack.deep_link([PROJECT])
    alice = Browser()
    page = stack.launch(alice, link["id"], "alice")
    assert page.status_code == 200, page.text[:300]
    text = _text(page)
    assert f"Project: {project.title}" in text
    assert "Graded: starter/model.py, and only that file" in text
    assert "Submit model.py" in text and "main.py" not in text, "one graded file, named once"
    for stage in project.stages:
        assert f"Stage {stage.number}: {stage.title}" in text
    # Before any attempt: every check the grader will run, by its title and points.
    assert project.checks and sum(c.points for c in project.checks) == \
        project.exercise.max_points
    assert f"What the hidden checks test ({project.exercise.max_points:g} points)" in text
    for check in project.checks:
        assert f"{check.title} ({check.points:g} point" in text, check
    hrefs = {html.unescape(h) for h in re.findall(r'href="([^"]+)"', page.text)}
    starter = next(h for h in hrefs if h.split("?")[0].endswith("/project/starter/model.py"))
    got = alice.get(urljoin(page.url, starter))
    assert got.status_code == 200 and got.text == project.exercise.starter_code
    folder = next(h for h in hrefs if h.split("?")[0].endswith("/project.zip"))
    zipped = alice.get(urljoin(page.url, folder))
    names = zipfile.ZipFile(io.BytesIO(zipped.content)).namelist()
    assert f"projects/{project.slug}/starter/model.py" in names
    assert not [n for n in names if "solution" in n or n.endswith("checks.py")], names
    # Nothing else of the project, and nothing outside it, is served.
    for bad in ("solution/model.py", "checks.py", "../../README.md"):
        assert alice.get(urljoin(page.url, starter.replace("starter/model.py", bad))
                         ).status_code == 404, bad


def test_the_picker_labels_items_by_their_own_name_and_lists_the_project_under_its_phase(
        real_stack: Stack) -> None:
    stack = real_stack
    course = state(stack.tool).course.get()
    picker = Browser().get(stack.lms_url + "/deep-link?user=teacher")
    for _, ex in course.exercises():
        label = re.search(rf'value="{re.escape(ex.id)}"[^>]*>\s*(.*?)\s*<small>', picker.text,
                          re.S)
        assert label and html.unescape(re.sub(r"<[^>]+>", "", label[1])).strip() == ex.title
    for phase in course.phases:
        if phase.project is None or phase.project.exercise is None:
            continue
        fieldset = picker.text.split(f'id="phase-{phase.id}"', 1)[1].split("</fieldset>", 1)[0]
        last_lesson = fieldset.rsplit('<ul class="lesson"', 1)[1].split("</ul>", 1)[0]
        assert phase.project.id not in last_lesson, "the project is not an item of a lesson"
        assert f'value="{phase.project.id}"' in fieldset.split('<ul class="project"', 1)[1]
        assert f"(project of phase {phase.number}," in fieldset


def test_the_class_view_shows_graded_and_practice_answers_apart(real_stack: Stack) -> None:
    stack = real_stack
    lesson_link, checkpoint_link = stack.deep_link(["arrays-04", CHECKPOINT])
    for link in (lesson_link, checkpoint_link):
        alice = Browser()
        page = stack.launch(alice, link["id"], "alice")
        lt = parse_qs(urlparse(page.url).query)["lt"][0]
        pid = int(urlparse(page.url).path.rstrip("/").split("/")[-1])
        sent = requests.post(f"{stack.tool_url}/api/placements/{pid}/checkpoint-answers",
                             json={"choice": "a"}, headers={"X-Pathways-Launch": lt},
                             timeout=30)
        assert sent.status_code == 201, sent.text
        assert sent.json()["choice_label"] in "ABCDEFGH" and sent.json()["choice_text"]
    teacher = stack.launch(Browser(), checkpoint_link["id"], "teacher")
    lt = parse_qs(urlparse(teacher.url).query)["lt"][0]
    view = requests.get(f"{stack.tool_url}/instructor/class", params={"lt": lt}, timeout=30)
    graded = view.text.split('id="checkpoints-graded"', 1)[1].split('id="checkpoints-practice"')[0]
    practice = view.text.split('id="checkpoints-practice"', 1)[1].split("<h2", 1)[0]
    assert graded.count('data-graded="yes"') == 1 and 'data-graded="no"' not in graded
    assert practice.count('data-graded="no"') == 1
