"""A phase's study guide: preparation, milestones (each lesson and what it lets you do) and the
evidence its integration project asks for. Built from the content model, so it never drifts
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
        "<h2>Milestones</h2>", f"<ol>{milestones}</ol>",
        "<h2>Project evidence</h2>",
    ]
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
