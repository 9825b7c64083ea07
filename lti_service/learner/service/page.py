"""The lesson body: ``course.render.lesson_html`` with the live checkpoint form wired to us."""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Mapping
from functools import cache
from urllib.parse import urlencode

from markupsafe import Markup

from course.model import Checkpoint, Course, Lesson, Phase
from course.render import LessonLinks, checkpoint_html, guide_html, lesson_html, setup_html

# Rendering a lesson (Markdown, math, Pygments) costs ~50 ms of CPU; a class opening it at once
# queued behind it (bench/checkpoint_load.py, issues 5 and 23). What depends only on the lesson
# (its course version) and the placement's form action is rendered once per process, with
# placeholders for the hidden values and two kinds of slot: the checkpoint form (each learner
# has their own variant and choice order; it is assembled per request from Markdown the
# renderer caches per text) and the exercise panels (the learner's attempts). Launch tokens
# (unpadded URL-safe base64) and CSRF tokens (hex) are unchanged by URL or HTML escaping, so
# they go in by text replacement; any other value skips the cache.
_SAFE = re.compile(r"[A-Za-z0-9_.\-]*")
_PLACEHOLDER = "pathways-hidden-value-{}-3f9c2a"
_PANEL = "<!--pathways-exercise-panel:{}-->"
_CHECKPOINT = "<!--pathways-checkpoint-form-->"
_CACHE_LIMIT = 256  # bodies (lesson x placement): ~100-300 kB each
_Key = tuple[int, int, str, str, tuple[str, ...], tuple[str, ...]]
_cache: OrderedDict[_Key, tuple[Lesson, str]] = OrderedDict()
_lock = threading.Lock()
_stats = {"renders": 0}


def body_renders() -> int:
    """How many lesson bodies this process has rendered (the count tests: 0 on a warm page)."""
    return _stats["renders"]


def _links(lesson: Lesson, action: str, hidden: Mapping[str, str], course: Course | None,
           panels: tuple[str, ...], slot: str | None) -> tuple[LessonLinks, Phase | None]:
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
        checkpoint_slot=slot,
        show_solutions=False,
        exercise_panel={ex_id: _PANEL.format(ex_id) for ex_id in panels},
    )
    return links, phase


def _render(lesson: Lesson, action: str, hidden: Mapping[str, str],
            course: Course | None = None, panels: tuple[str, ...] = (),
            slot: str | None = None) -> str:
    links, phase = _links(lesson, action, hidden, course, panels, slot)
    _stats["renders"] += 1
    return lesson_html(lesson, links=links, project=phase.project if phase else None)


def _body(lesson: Lesson, action: str, names: tuple[str, ...], course: Course | None,
          slots: tuple[str, ...]) -> str:
    """The shared body of (lesson, course version, action): placeholders for the hidden
    values, the checkpoint slot and the panels' slots."""
    key = (id(lesson), id(course), lesson.revision, action, names, slots)
    with _lock:
        hit = _cache.get(key)
        if hit is not None and hit[0] is lesson:
            _cache.move_to_end(key)
            return hit[1]
    placeholders = {name: _PLACEHOLDER.format(i) for i, name in enumerate(names)}
    html = _render(lesson, action, placeholders, course, slots, _CHECKPOINT)
    with _lock:
        _cache[key] = (lesson, html)
        while len(_cache) > _CACHE_LIMIT:
            _cache.popitem(last=False)
    return html


def lesson_fragment(lesson: Lesson, action: str, hidden: Mapping[str, str],
                    course: Course | None = None,
                    checkpoint: Checkpoint | None = None,
                    panels: Mapping[str, Markup] | None = None,
                    beside: Markup | None = None, locked: bool = False) -> Markup:
    """The lesson body; ``course`` names prerequisites by title and places it in its phase;
    ``checkpoint``: the learner's own view of the lesson's checkpoint (variant, choice order);
    ``panels``: exercise id -> the learner's submit form and attempts, put under the exercise
    (per learner, so after the cached render); ``beside``: the learner's newest checkpoint
    result and the lock reason, put right after the form (the answer redirects to it);
    ``locked``: no attempt left, the form's choices and button are disabled."""
    values = dict(hidden)
    slots = tuple(panels or {})
    if not all(_SAFE.fullmatch(k) and _SAFE.fullmatch(v) for k, v in values.items()):
        html = _render(lesson, action, values, course, slots, _CHECKPOINT)
        form = _form(checkpoint or lesson.checkpoint, action, values, locked)
        return _with_panels(html.replace(_CHECKPOINT, form + str(beside or ""), 1), panels)
    names = tuple(values)
    placeholders = {name: _PLACEHOLDER.format(i) for i, name in enumerate(names)}
    form = _form(checkpoint or lesson.checkpoint, action, placeholders, locked)
    html = _body(lesson, action, names, course, slots).replace(
        _CHECKPOINT, form + str(beside or ""), 1)
    for i, name in enumerate(names):
        html = html.replace(_PLACEHOLDER.format(i), values[name])
    return _with_panels(html, panels)


def _form(checkpoint: Checkpoint, action: str, hidden: Mapping[str, str], locked: bool) -> str:
    form = checkpoint_html(checkpoint, LessonLinks(
        figure="", checkpoint_action=action, checkpoint_hidden=tuple(hidden.items())))
    if locked:  # the server refuses an answer anyway; the page says so before one is sent
        form = form.replace("<fieldset>", '<fieldset disabled aria-describedby="checkpoint-'
                            'locked">', 1).replace('<button type="submit">Check answer</button>',
                                                   "", 1)
    return form


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
