"""What the picker and the launch need from the course: content ids, titles, line items."""

from __future__ import annotations

from dataclasses import dataclass, field

from course.model import Course, Lesson, Phase
from course.placeables import placeables

# Placements whose line item the lesson's checkpoint scores (a placed lesson carries its
# checkpoint); an exercise placement's line item is scored by submissions only.
CHECKPOINT_KINDS = ("lesson", "checkpoint")
EXERCISE_KINDS = ("exercise", "project")
# Placements whose page submits the lesson's exercises as practice (never scored there).
LESSON_KINDS = ("lesson",)


@dataclass(frozen=True)
class ContentItem:
    content_id: str
    kind: str  # lesson | checkpoint | exercise | project
    title: str
    score_maximum: float
    lesson: Lesson
    description: str = ""
    """One line for the picker: a lesson's summary, the question, the exercise prompt."""
    label: str = ""
    """Its own name under its lesson in the picker ("Checkpoint", the exercise's title)."""


@dataclass(frozen=True)
class LessonGroup:
    """A lesson and its placeable items (the lesson itself first), as the picker lists them."""

    lesson: Lesson
    items: list[ContentItem] = field(default_factory=list)


@dataclass(frozen=True)
class PhaseGroup:
    phase: Phase
    lessons: list[LessonGroup] = field(default_factory=list)
    projects: list[ContentItem] = field(default_factory=list)
    """The phase's gradable project, listed after its lessons (not as a lesson's item)."""


def has_gradebook_column(kind: str, lineitem_url: str | None) -> bool:
    """Whether a placement's scores go to the LMS: a lesson only when it was placed with a
    completion score (the LMS then sends its line item); checkpoints and exercises always."""
    return kind != "lesson" or lineitem_url is not None


def items(course: Course) -> list[ContentItem]:
    # A lesson's line item (1.0) is only placed when the instructor asks for a completion score
    # (the lesson's checkpoint scores it); by default a lesson is an ungraded link.
    return [ContentItem(p.content_id, p.kind, p.title,
                        1.0 if p.max_points is None else p.max_points, p.lesson,
                        first_line(p.description), p.label)
            for p in placeables(course)]


def is_graded_by_submission(course: Course, content_id: str) -> bool:
    """An exercise or a gradable project (both of kind ``exercise`` in the course's index, not
    guessed from the id's spelling): its launch opens the submission page."""
    item = find(course, content_id)
    return item is not None and item.kind in EXERCISE_KINDS


def first_line(text: str, limit: int = 160) -> str:
    """The first sentence or line of a Markdown text, cut at ``limit`` characters."""
    line = next((t.strip() for t in text.splitlines() if t.strip()), "")
    end = line.find(". ")
    line = line[: end + 1] if 0 < end else line
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    for mark in ("`", "$"):  # never leave a code span or math open: it would swallow the rest
        if cut.count(mark) % 2:
            cut = cut[: cut.rfind(mark)]
    return cut.rstrip() + "…"


def grouped(course: Course) -> list[PhaseGroup]:
    """Every placeable item, grouped by phase and lesson in course order."""
    by_lesson: dict[str, list[ContentItem]] = {}
    projects: dict[str, list[ContentItem]] = {}
    for item in items(course):
        if item.kind == "project":
            projects.setdefault(item.lesson.phase_id, []).append(item)
        else:
            by_lesson.setdefault(item.lesson.id, []).append(item)
    return [PhaseGroup(phase, [LessonGroup(lesson, by_lesson.get(lesson.id, []))
                               for lesson in phase.lessons], projects.get(phase.id, []))
            for phase in course.phases]


def expand_lessons(course: Course, lesson_ids: list[str]) -> list[str]:
    """Content ids of whole lessons the picker selected: the lesson and all its items (not the
    phase's project, which is placed on its own)."""
    wanted = set(lesson_ids)
    return [item.content_id for item in items(course)
            if item.lesson.id in wanted and item.kind != "project"]


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
