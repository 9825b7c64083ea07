"""What an LMS can place from the course: every lesson, checkpoint and exercise, in course order,
and each phase's gradable project after its lessons (kind ``project``: graded like an exercise,
by submission, but it belongs to the phase, not to its last lesson).

The one list the cartridge export and the tool's deep-linking picker both read, so the two
never disagree on ids, titles or order. ``max_points`` is what the content itself defines
(None for a lesson, which has no score of its own); each consumer states its own policy for
that case where it turns items into LMS objects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from course.model import Course, Lesson

PlaceableKind = Literal["lesson", "checkpoint", "exercise", "project"]


@dataclass(frozen=True)
class Placeable:
    content_id: str
    kind: PlaceableKind
    title: str
    description: str
    max_points: float | None
    lesson: Lesson
    """Its lesson (a project: the phase's last lesson, whose page shows the project block)."""
    label: str = ""
    """Its own name, without the lesson's title (the picker lists it under its lesson)."""


def placeables(course: Course) -> list[Placeable]:
    out: list[Placeable] = []
    for phase in course.phases:
        for lesson in phase.lessons:
            out.append(Placeable(lesson.id, "lesson", lesson.title, lesson.summary, None,
                                 lesson, "Lesson page"))
            out.append(Placeable(lesson.checkpoint.id, "checkpoint",
                                 f"{lesson.title}: checkpoint", lesson.checkpoint.question, 1.0,
                                 lesson, "Checkpoint"))
            out += [Placeable(ex.id, "exercise", f"{lesson.title}: {ex.title}", ex.prompt,
                              float(ex.max_points), lesson, ex.title) for ex in lesson.exercises]
        project = phase.project.exercise if phase.project else None
        if project is not None and phase.lessons:
            out.append(Placeable(project.id, "project", f"Project: {project.title}",
                                 project.prompt, float(project.max_points), phase.lessons[-1],
                                 project.title))
    return out
