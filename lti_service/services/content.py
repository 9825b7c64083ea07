"""What the picker and the launch need from the course: content ids, titles, line items."""

from __future__ import annotations

from dataclasses import dataclass

from course.model import Course, Lesson


@dataclass(frozen=True)
class ContentItem:
    content_id: str
    kind: str  # lesson | checkpoint | exercise
    title: str
    score_maximum: float
    lesson: Lesson


def items(course: Course) -> list[ContentItem]:
    out: list[ContentItem] = []
    for lesson in course.lessons():
        out.append(ContentItem(lesson.id, "lesson", lesson.title, 1.0, lesson))
        out.append(ContentItem(lesson.checkpoint.id, "checkpoint",
                               f"{lesson.title}: checkpoint", 1.0, lesson))
        for ex in lesson.exercises:
            out.append(ContentItem(ex.id, "exercise", f"{lesson.title}: {ex.title}",
                                   float(ex.max_points), lesson))
    return out


def find(course: Course, content_id: str) -> ContentItem | None:
    return next((i for i in items(course) if i.content_id == content_id), None)
