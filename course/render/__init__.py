"""Render course content to HTML: lessons and projects as fragments, one stylesheet.

``lesson_html(lesson, links=LessonLinks(...))`` is shared by the static site (`pathways course
build`) and the LMS lesson page (the service wraps the fragment in its own layout).
"""

from course.render.guide import guide_html
from course.render.lesson import STAGES, checkpoint_html, lesson_html
from course.render.links import LessonLinks
from course.render.markdown import RenderError
from course.render.project import project_html
from course.render.setup import setup_html
from course.render.theme import stylesheet

__all__ = ["STAGES", "LessonLinks", "RenderError", "checkpoint_html", "guide_html",
           "lesson_html", "project_html", "setup_html", "stylesheet"]
