"""Where a rendered lesson points: the one thing that differs between the static site and the
LMS lesson page, so the renderer itself stays a pure function of the lesson."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class LessonLinks:
    """URLs (relative or absolute) and checkpoint form wiring for one rendered lesson.

    figure: URL of ``figure/figure.png``.
    figure_data: URL of ``figure/data.json`` (data and provenance); None hides the link.
    notebook: URL of the executed lesson notebook; None hides the link.
    exercise_py / exercise_ipynb: URLs of ``exercises/arrays-0N.py`` / ``.ipynb``.
    main_py: URL of the complete ``code/main.py``.
    receipt: URL of the recorded reference execution (``receipt.json``).
    evidence_template: URL of ``evidence.md``.
    project: URL of the phase's project page; None when there is none.
    lessons: lesson id -> URL, so prerequisites become links (unknown ids stay plain text).
    lesson_titles: lesson id -> title, the text of those links (the id when missing).
    checkpoint_action: the form's action URL. None renders a static self-check: per-choice
        feedback revealed by CSS when a choice is selected, no request made. A URL renders a
        live form that posts the choice and reveals nothing (the server judges it).
    checkpoint_method: HTTP method of the live form.
    checkpoint_field: name of the radio field that carries the choice key.
    checkpoint_hidden: extra hidden inputs of the live form (name, value), e.g. a CSRF token.
    checkpoint_slot: when set, this marker stands where the checkpoint form would be, and the
        caller puts ``checkpoint_html`` there (the LMS page: the body is shared by every
        learner, the form has the learner's own variant and choice order).
    exercise_submit: exercise id -> URL of its submit page (LMS only); missing ids show none.
    exercise_panel: exercise id -> HTML placed at the end of that exercise, as given (the
        caller's own markup, e.g. the LMS tool's submit form and attempts; never content text).
    phase_title: the phase's title for the breadcrumb (its id when None).
    lessons_in_phase: how many lessons the phase has, for "Lesson 4 of 4" (None: "Lesson 4").
    setup: URL of the setup help page (macOS/Linux, Windows, Cloud TPU VM); None hides it.
    lesson_text: URL of the lesson's source text (``lesson.md``); None hides the download.
    phase_guide: URL of the phase's study guide; None hides the link.
    show_solutions: False leaves reference solutions and reasoning out of the page.
    """

    figure: str
    figure_data: str | None = None
    notebook: str | None = None
    exercise_py: str | None = None
    exercise_ipynb: str | None = None
    main_py: str | None = None
    receipt: str | None = None
    evidence_template: str | None = None
    project: str | None = None
    lessons: Mapping[str, str] = field(default_factory=dict)
    lesson_titles: Mapping[str, str] = field(default_factory=dict)
    checkpoint_action: str | None = None
    checkpoint_method: str = "post"
    checkpoint_field: str = "choice"
    checkpoint_hidden: tuple[tuple[str, str], ...] = ()
    checkpoint_slot: str | None = None
    exercise_submit: Mapping[str, str] = field(default_factory=dict)
    exercise_panel: Mapping[str, str] = field(default_factory=dict)
    show_solutions: bool = True
    phase_title: str | None = None
    lessons_in_phase: int | None = None
    setup: str | None = None
    lesson_text: str | None = None
    phase_guide: str | None = None
