"""A phase's study guide: preparation, how to study, milestones (each lesson and what it lets you
do), the checkpoints mapped to their lessons, a self-check, and the evidence its integration
project asks for. Built from the content model, so it never drifts
from the lessons; linked from every lesson of the phase (static site and LMS)."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

from course.model import Phase
from course.render import markdown


def _link(url: str | None, text: str) -> str:
    return f'<a href="{escape(url, quote=True)}">{text}</a>' if url else text


def guide_html(phase: Phase, *, lessons: Mapping[str, str] | None = None,
               setup: str | None = None, project: str | None = None) -> str:
    """The guide's body (``<article>``); the URLs make lessons, setup and project links."""
    lessons = lessons or {}
    first = phase.lessons[0] if phase.lessons else None
    minutes = sum(lesson.minutes for lesson in phase.lessons)
    prep = [f"About {minutes} minutes over {len(phase.lessons)} lessons."]
    if first is not None and first.prerequisites:
        prep.append("Before the first lesson: " + ", ".join(
            escape(p) for p in first.prerequisites) + ".")
    prep.append(_link(setup, "Set up Python and the course packages") + " once; every lesson "
                "runs its <code>main.py</code> from the repository folder.")
    milestones = "".join(
        f"<li><strong>{_link(lessons.get(lesson.id), markdown.inline(lesson.title))}</strong>"
        f" ({lesson.minutes} min): "
        + "; ".join(markdown.inline(o) for o in lesson.objectives) + "</li>"
        for lesson in phase.lessons)
    out = [
        f'<article class="guide" id="guide-{escape(phase.id)}" lang="en">',
        f'<p class="crumb">Phase {phase.number:02d} · Study guide</p>',
        f"<h1>{markdown.inline(phase.title)}: study guide</h1>",
        f'<p class="summary">{markdown.inline(phase.summary)}</p>',
        "<h2>Preparation</h2><ul>", *[f"<li>{p}</li>" for p in prep], "</ul>",
    ]
    if phase.how_to_study:
        out += ["<h2>How to study</h2><ol>",
                *[f"<li>{markdown.inline(step)}</li>" for step in phase.how_to_study], "</ol>"]
    out += ["<h2>Milestones</h2>", f"<ol>{milestones}</ol>",
            *_checkpoint_map(phase, lessons), *_self_check(phase, lessons),
            "<h2>Project evidence</h2>"]
    if phase.project is None:
        out.append("<p>This phase has no integration project; keep each lesson's evidence.</p>")
    else:
        p = phase.project
        stages = "".join(f"<li><strong>Stage {s.number}: {markdown.inline(s.title)}</strong> "
                         f"{markdown.inline(s.description)}</li>" for s in p.stages)
        out += [f"<p>{_link(project, markdown.inline(p.title))}: "
                f"{markdown.inline(p.summary)}</p>",
                f"<p><strong>Checkpoint to prove:</strong> "
                f"{markdown.inline(p.checkpoint_prompt)}</p>", f"<ol>{stages}</ol>"]
    return "".join(out) + "</article>\n"


def _checkpoint_map(phase: Phase, lessons: Mapping[str, str]) -> list[str]:
    """Each lesson's checkpoint question next to the lesson that teaches it."""
    if not phase.lessons:
        return []
    rows = "".join(
        f"<tr><td>{markdown.inline(lesson.checkpoint.question)}</td>"
        f"<td>{_link(lessons.get(lesson.id), markdown.inline(lesson.title))}</td></tr>"
        for lesson in phase.lessons)
    return ["<h2>Checkpoints and their lessons</h2>",
            "<p>Each lesson ends with one checkpoint question. If you miss one, go back to the "
            "lesson beside it.</p>",
            '<table class="checkpoint-map"><thead><tr><th scope="col">Checkpoint</th>'
            f'<th scope="col">Lesson</th></tr></thead><tbody>{rows}</tbody></table>']


def _self_check(phase: Phase, lessons: Mapping[str, str]) -> list[str]:
    """Questions to answer without notes; each answer is shown on request, with its lesson."""
    if not phase.self_check:
        return []
    titles = {lesson.id: lesson.title for lesson in phase.lessons}
    items = "".join(
        f"<li><p>{markdown.inline(item.question)}</p><details><summary>Answer</summary>"
        f"<p>{markdown.inline(item.answer)} "
        f"({_link(lessons.get(item.lesson), 'lesson: ' + markdown.inline(titles[item.lesson]))})"
        "</p></details></li>"
        for item in phase.self_check)
    return ["<h2>Self-check</h2>",
            "<p>Answer each question in a sentence or two, or with a few lines of code you run, "
            "before opening the answer.</p>", f"<ol>{items}</ol>"]
