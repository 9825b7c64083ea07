"""The lesson body: ``course.render.lesson_html`` with the live checkpoint form wired to us."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlencode

from markupsafe import Markup

from course.model import Lesson
from course.render import LessonLinks, lesson_html


def lesson_fragment(lesson: Lesson, action: str, hidden: Mapping[str, str]) -> Markup:
    links = LessonLinks(
        figure=action.rsplit("/", 1)[0] + "/figure.png?" + urlencode(dict(hidden)),
        checkpoint_action=action,
        checkpoint_method="post",
        checkpoint_field="choice",
        checkpoint_hidden=tuple(hidden.items()),
        show_solutions=False,
    )
    return Markup(lesson_html(lesson, links=links))  # noqa: S704 - the renderer escapes content
