"""Static site pages: a full HTML document around each rendered fragment, the index, and the
links a static lesson page uses (relative, so the site works from a folder or any web root)."""

from __future__ import annotations

from html import escape

from course.model import Course, Lesson, Phase
from course.render import LessonLinks, markdown

STYLE = "style.css"
SETUP = "setup.html"


def lesson_page(lesson: Lesson) -> str:
    return f"lessons/{lesson.id}.html"


def asset(lesson: Lesson, name: str) -> str:
    return f"lessons/{lesson.id}/{name}"


def guide_page(phase: Phase) -> str:
    return f"guides/{phase.id}.html"


def project_page(slug: str) -> str:
    return f"projects/{slug}.html"


def static_links(course: Course, phase: Phase, lesson: Lesson) -> LessonLinks:
    """Links from ``lessons/<id>.html``; the checkpoint is a self-check (no action)."""
    return LessonLinks(
        figure=f"{lesson.id}/figure.png",
        figure_data=f"{lesson.id}/data.json",
        notebook=f"../notebooks/{lesson.id}.ipynb",
        exercise_py=f"../exercises/{lesson.id}.py",
        exercise_ipynb=f"../exercises/{lesson.id}.ipynb",
        main_py=f"{lesson.id}/main.py",
        receipt=f"{lesson.id}/receipt.json" if lesson.receipt else None,
        evidence_template=f"{lesson.id}/evidence.md",
        project=f"../{project_page(phase.project.slug)}" if phase.project else None,
        lessons={other.id: f"{other.id}.html" for other in course.lessons()},
        lesson_titles={other.id: other.title for other in course.lessons()},
        phase_title=phase.title,
        lessons_in_phase=len(phase.lessons),
        setup=f"../{SETUP}",
        phase_guide=f"../{guide_page(phase)}",
        lesson_text=f"{lesson.id}/lesson.md",
    )


def document(title: str, body: str, *, depth: int) -> str:
    """A whole page: the theme toggle (a checkbox the stylesheet reads, no script) and body."""
    up = "../" * depth
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title>"
        f'<link rel="stylesheet" href="{up}{STYLE}"></head><body>'
        '<header class="site-header"><a href="' + up + 'index.html">JAX Pathways</a>'
        '<label class="theme-switch"><input type="checkbox" id="theme-toggle"> '
        "Switch light/dark theme</label></header>"
        f"<main>{body}</main></body></html>\n"
    )


def index_page(course: Course, zip_name: str) -> str:
    parts = [f"<h1>{escape(course.title)}</h1>",
             f'<p class="meta">Version {escape(course.version)}</p>',
             f'<p><a href="{escape(zip_name)}">Download the learner files (ZIP)</a>: every '
             "lesson's code, experiments and figure data, the exercises and the projects.</p>",
             f'<p><a href="{SETUP}">Setup help: Python, notebook, or Cloud TPU VM</a></p>']
    for phase in course.phases:
        parts.append(f"<section><h2>Phase {phase.number:02d} · {markdown.inline(phase.title)}"
                     f"</h2><p>{markdown.inline(phase.summary)}</p><ol>")
        for lesson in phase.lessons:
            parts.append(f'<li><a href="{lesson_page(lesson)}">{markdown.inline(lesson.title)}'
                         f"</a> — {markdown.inline(lesson.summary)} "
                         f'<span class="meta">(about {lesson.minutes} minutes)</span></li>')
        parts.append("</ol>")
        parts.append(f'<p><a href="{guide_page(phase)}">Phase study guide</a></p>')
        if phase.project:
            parts.append(f'<p>Integration project: <a href="{project_page(phase.project.slug)}">'
                         f"{markdown.inline(phase.project.title)}</a></p>")
        parts.append("</section>")
    return document(course.title, "".join(parts), depth=0)


def index_inputs(course: Course) -> str:
    """What the index shows, as text: its cache key changes only when the index would."""
    rows = [course.title, course.version]
    for phase in course.phases:
        rows += [phase.id, phase.title, phase.summary,
                 phase.project.title if phase.project else ""]
        rows += [f"{lesson.id}|{lesson.title}|{lesson.summary}|{lesson.minutes}"
                 for lesson in phase.lessons]
    return "\n".join(rows)
