"""What the picker and the launch need from the course: content ids, titles, line items."""

from __future__ import annotations

from dataclasses import dataclass

from course.model import Course, Lesson
from course.placeables import placeables

# Placements whose line item the lesson's checkpoint scores (a placed lesson carries its
# checkpoint); an exercise placement's line item is scored by submissions only.
CHECKPOINT_KINDS = ("lesson", "checkpoint")
EXERCISE_KINDS = ("exercise",)


@dataclass(frozen=True)
class ContentItem:
    content_id: str
    kind: str  # lesson | checkpoint | exercise
    title: str
    score_maximum: float
    lesson: Lesson


def items(course: Course) -> list[ContentItem]:
    # A placed lesson keeps a line item of 1.0 (as the picker has always returned).
    return [ContentItem(p.content_id, p.kind, p.title,
                        1.0 if p.max_points is None else p.max_points, p.lesson)
            for p in placeables(course)]


def is_graded_by_submission(content_id: str) -> bool:
    """An exercise (``<lesson>.exercise.<slug>``) or a gradable project (``project.<slug>``):
    its launch opens the submission page."""
    return ".exercise." in content_id or content_id.startswith("project.")


def find(course: Course, content_id: str) -> ContentItem | None:
    return next((i for i in items(course) if i.content_id == content_id), None)
