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


# content id -> item, per loaded course: a launch and every guarded request look an item up,
# and listing every placeable of the course each time was ~3 ms of CPU. Courses are loaded
# once and not changed afterwards; the course is kept with its index so an id is never reused.
_INDEXES: dict[int, tuple[Course, dict[str, ContentItem]]] = {}
_MAX_INDEXES = 16


def _index(course: Course) -> dict[str, ContentItem]:
    hit = _INDEXES.get(id(course))
    if hit is None or hit[0] is not course:
        if len(_INDEXES) >= _MAX_INDEXES:
            _INDEXES.clear()
        index: dict[str, ContentItem] = {}
        for item in items(course):
            index.setdefault(item.content_id, item)  # the first, as a scan would find
        hit = (course, index)
        _INDEXES[id(course)] = hit
    return hit[1]


def find(course: Course, content_id: str) -> ContentItem | None:
    return _index(course).get(content_id)
