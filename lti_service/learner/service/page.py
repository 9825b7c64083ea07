"""The lesson body: ``course.render.lesson_html`` with the live checkpoint form wired to us."""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from dataclasses import replace
from functools import cache
from urllib.parse import urlencode

from markupsafe import Markup

from course.model import Checkpoint, Course, Lesson
from course.render import LessonLinks, guide_html, lesson_html, setup_html

# Rendering a lesson (Markdown, Pygments) costs ~50 ms of CPU and was done on every page view:
# a class opening the lesson at once queued behind it (bench/checkpoint_load.py). The body
# only varies with the launch token, so it is rendered once per (lesson, action) with
# placeholders, and the token is put in by text replacement. Launch tokens (unpadded URL-safe
# base64) and CSRF tokens (hex) are unchanged by URL or HTML escaping; any other value skips
# the cache.
_SAFE = re.compile(r"[A-Za-z0-9_.\-]*")
_PLACEHOLDER = "pathways-hidden-value-{}-3f9c2a"
_PANEL = "<!--pathways-exercise-panel:{}-->"
_CACHE_LIMIT = 256
_Key = tuple[int, int, str, str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]
_cache: dict[_Key, tuple[Lesson, str]] = {}
_lock = threading.Lock()


def _render(lesson: Lesson, action: str, hidden: Mapping[str, str],
            course: Course | None = None, panels: tuple[str, ...] = ()) -> str:
    phase = next((p for p in course.phases if p.id == lesson.phase_id), None) if course else None
    base, query = action.rsplit("/", 1)[0], urlencode(dict(hidden))
    links = LessonLinks(
        setup=f"{base}/setup?{query}",
        phase_guide=f"{base}/guide?{query}" if phase else None,
        lesson_text=f"{base}/lesson.md?{query}",
        lesson_titles={other.id: other.title for other in course.lessons()} if course else {},
        phase_title=phase.title if phase else None,
        lessons_in_phase=len(phase.lessons) if phase else None,
        figure=f"{base}/figure.png?{query}",
        checkpoint_action=action,
        checkpoint_method="post",
        checkpoint_field="choice",
        checkpoint_hidden=tuple(hidden.items()),
        show_solutions=False,
        exercise_panel={ex_id: _PANEL.format(ex_id) for ex_id in panels},
    )
    return lesson_html(lesson, links=links, project=phase.project if phase else None)


def lesson_fragment(lesson: Lesson, action: str, hidden: Mapping[str, str],
                    course: Course | None = None,
                    checkpoint: Checkpoint | None = None,
                    panels: Mapping[str, Markup] | None = None) -> Markup:
    """The lesson body; ``course`` names prerequisites by title and places it in its phase;
    ``checkpoint``: the learner's own view of the lesson's checkpoint (choice order);
    ``panels``: exercise id -> the learner's submit form and attempts, put under the exercise
    (per learner, so after the cached render)."""
    values = dict(hidden)
    shown = lesson if checkpoint is None else replace(lesson, checkpoint=checkpoint)
    slots = tuple(panels or {})
    if not all(_SAFE.fullmatch(k) and _SAFE.fullmatch(v) for k, v in values.items()):
        return _with_panels(_render(shown, action, values, course, slots), panels)
    names = tuple(values)
    order = tuple(c.key for c in shown.checkpoint.choices)
    key = (id(lesson), id(course), lesson.revision, action, names, order, slots)
    with _lock:
        hit = _cache.get(key)
    if hit is None or hit[0] is not lesson:
        placeholders = {name: _PLACEHOLDER.format(i) for i, name in enumerate(names)}
        hit = (lesson, _render(shown, action, placeholders, course, slots))
        with _lock:
            if len(_cache) >= _CACHE_LIMIT:
                _cache.clear()
            _cache[key] = hit
    html = hit[1]
    for i, name in enumerate(names):
        html = html.replace(_PLACEHOLDER.format(i), values[name])
    return _with_panels(html, panels)


def _with_panels(html: str, panels: Mapping[str, Markup] | None) -> Markup:
    for ex_id, panel in (panels or {}).items():
        html = html.replace(_PANEL.format(ex_id), str(panel), 1)
    # the renderer escapes content; hidden values are URL-safe; panels are our own templates
    return Markup(html)  # noqa: S704


@cache
def setup_body() -> Markup:
    """The setup help page body (the same text as the static site's setup page)."""
    return Markup(setup_html())  # noqa: S704 - the renderer escapes content


def guide_body(course: Course, lesson: Lesson, setup: str) -> Markup | None:
    """The study guide of the lesson's phase (lessons unlinked: each is its own LMS activity)."""
    phase = next((p for p in course.phases if p.id == lesson.phase_id), None)
    if phase is None:
        return None
    return Markup(guide_html(phase, setup=setup))  # noqa: S704 - the renderer escapes content
