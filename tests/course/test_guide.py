"""A phase's study guide: how to study, the checkpoint-to-lesson map and the self-check, built
from the content model (rendered for real from the course's own phase files)."""

from __future__ import annotations

from html import escape
from pathlib import Path

import pytest
from test_render import parse

from course import ContentError, load_course
from course.render import guide_html, markdown
from tests.packaged import packaged_course


def _phase(course, phase_id: str):
    return next(p for p in course.phases if p.id == phase_id)


def _text(html: str) -> str:
    return " ".join("".join(parse(html).text).split())


@pytest.mark.parametrize("phase_id", ["02-transformations", "03-randomness"])
def test_guide_has_how_to_study_checkpoint_map_and_self_check(phase_id: str) -> None:
    phase = _phase(packaged_course(), phase_id)
    links = {lesson.id: f"../lessons/{lesson.id}.html" for lesson in phase.lessons}
    html = guide_html(phase, lessons=links)
    text = _text(html)
    order = ["Preparation", "How to study", "Milestones", "Checkpoints and their lessons",
             "Self-check", "Project evidence"]
    assert [text.index(h) for h in order] == sorted(text.index(h) for h in order)
    assert len(phase.how_to_study) >= 3
    for step in phase.how_to_study:
        assert " ".join(_text(markdown.inline(step)).split()) in text
    for lesson in phase.lessons:  # every checkpoint sits in a row with a link to its lesson
        row = (f"<tr><td>{markdown.inline(lesson.checkpoint.question)}</td>"
               f'<td><a href="{escape(links[lesson.id])}">')
        assert row in html, lesson.id
    assert len(phase.self_check) >= len(phase.lessons)
    assert {item.lesson for item in phase.self_check} == {lesson.id for lesson in phase.lessons}
    for item in phase.self_check:
        assert f"<li><p>{markdown.inline(item.question)}</p><details>" in html
        assert f'(<a href="{links[item.lesson]}">lesson: ' in html


def test_a_guide_without_study_notes_leaves_those_sections_out() -> None:
    phase = _phase(packaged_course(), "01-arrays")
    assert phase.how_to_study == () and phase.self_check == ()
    text = _text(guide_html(phase))
    assert "How to study" not in text and "Self-check" not in text
    assert "Checkpoints and their lessons" in text  # built from the lessons alone
    for lesson in phase.lessons:
        assert lesson.title in text


def test_a_self_check_naming_another_phases_lesson_is_refused(content_copy: Path) -> None:
    phase_yaml = content_copy / "phases" / "02-transformations" / "phase.yaml"
    phase_yaml.write_text(phase_yaml.read_text().replace("lesson: transforms-03",
                                                         "lesson: arrays-03"))
    try:
        load_course(content_copy)
        raise AssertionError("an unknown lesson in self_check must be refused")
    except ContentError as exc:
        problems = [p for p in exc.problems if "self_check" in p.where]
        assert problems and all("`arrays-03` is not a lesson of this phase" in p.message
                                for p in problems)
