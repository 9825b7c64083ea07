"""The course content model: what the loader builds from content files, and what the
course tools, the LTI service and the grader read. Plain frozen dataclasses, no I/O.

Content ids are stable slugs (DESIGN.md): ``arrays-04``, ``arrays-04.checkpoint``,
``arrays-04.exercise.mask-tail``, ``project.arrays-audit``. The LMS stores them in resource
links and line items, so they never change when a title or a folder name changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from course.variants import default_variant, render, variant_space

ExerciseKind = Literal["exercise", "practice", "challenge", "project"]


@dataclass(frozen=True)
class Reference:
    title: str
    url: str


@dataclass(frozen=True)
class Section:
    """One titled block of Understand prose (Markdown with $math$ and $$display math$$)."""

    title: str
    body_md: str


@dataclass(frozen=True)
class BuildStep:
    """A build step: a marked region of ``code/main.py`` (``# region step-N`` .. ``# endregion``).

    ``code`` is derived from the file by the loader, never written twice, so it cannot drift.
    """

    number: int
    region: str
    title: str
    intro: str
    code: str
    building_blocks: tuple[str, ...]
    why: str


@dataclass(frozen=True)
class Experiment:
    """A controlled experiment; its code runs appended to ``code/main.py``'s namespace."""

    slug: str
    title: str
    path: Path
    code: str
    expected: str
    explanation: str


@dataclass(frozen=True)
class Exercise:
    """An exercise, practice or challenge. The learner submits a whole ``main.py``: the lesson's
    ``code/main.py`` with their solution appended; ``checks`` grade it (hidden from learners)."""

    id: str
    slug: str
    kind: ExerciseKind
    title: str
    prompt: str
    guide: tuple[str, ...]
    plan: tuple[str, ...]
    hints: tuple[str, ...]
    reasoning: str
    starter_code: str
    solution_code: str
    checks_path: Path
    max_points: float
    params: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    """Declared variant parameters (name, values), from checks.py's ``FunctionExercise``."""
    checks_hash: str = ""
    """sha256 of checks.py and solution.py: what grades a submission (stored with results)."""
    function: str = ""
    """The function the learner writes (empty for a values exercise)."""
    standalone: bool = False
    """The learner submits this file whole (a project's model.py), not appended to main.py."""
    templates: tuple[str, str, str] = ("", "", "")
    """prompt, starter and solution as written, with ``{{name}}`` fields; the fields above
    hold the default variant, which the static site and downloads show."""
    text_templates: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], str] | None = None
    """guide, plan, hints and reasoning as written (None: they have no ``{{name}}`` field)."""
    devices: int = 1
    """Logical CPU devices its runs get (``course.devices``): the grader and ``course check``
    set XLA's device count for this exercise's runs only."""

    @property
    def param_space(self) -> dict[str, tuple[Any, ...]]:
        return dict(self.params)

    @property
    def variants(self) -> list[dict[str, Any]]:
        return variant_space(self.param_space)

    def for_variant(self, variant: dict[str, Any] | None = None) -> Exercise:
        """This exercise as one learner sees it: ``{{name}}`` fields filled in (the default
        variant when ``variant`` is None)."""
        chosen = variant if variant is not None else default_variant(self.param_space)
        prompt, starter, solution = (t or s for t, s in zip(
            self.templates, (self.prompt, self.starter_code, self.solution_code), strict=True))
        texts = {}
        if self.text_templates is not None:
            guide, plan, hints, reasoning = self.text_templates
            texts = {"guide": tuple(render(t, chosen) for t in guide),
                     "plan": tuple(render(t, chosen) for t in plan),
                     "hints": tuple(render(t, chosen) for t in hints),
                     "reasoning": render(reasoning, chosen)}
        return replace(self, prompt=render(prompt, chosen), starter_code=render(starter, chosen),
                       solution_code=render(solution, chosen), **texts)


@dataclass(frozen=True)
class Choice:
    key: str
    text: str
    correct: bool
    feedback: str
    correct_when: tuple[tuple[str, tuple[Any, ...]], ...] | None = None
    """Correct exactly in the variants whose parameters each take one of these values (a
    parametrised checkpoint's choice); None: ``correct`` holds in every variant."""

    def correct_in(self, variant: dict[str, Any]) -> bool:
        if self.correct_when is None:
            return self.correct
        return all(variant.get(name) in values for name, values in self.correct_when)


@dataclass(frozen=True)
class Checkpoint:
    """A multiple-choice question. A parametrised one declares ``params``; its fields then hold
    the default variant (what the static site and the QTI quiz show), and ``template`` keeps
    the texts as written, with ``{{name}}`` fields, for ``for_variant``."""

    id: str
    question: str
    choices: tuple[Choice, ...]
    explanation: str
    params: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    template: Checkpoint | None = None
    variant: tuple[tuple[str, Any], ...] = ()
    """The variant these texts and correct flags are for (empty when there are no params)."""

    @property
    def param_space(self) -> dict[str, tuple[Any, ...]]:
        return dict(self.params)

    @property
    def correct_keys(self) -> tuple[str, ...]:
        return tuple(c.key for c in self.choices if c.correct)

    def choice(self, key: str) -> Choice | None:
        return next((c for c in self.choices if c.key == key), None)

    def for_variant(self, variant: dict[str, Any] | None = None) -> Checkpoint:
        """The checkpoint as one learner sees it: fields filled in and each choice's
        ``correct`` resolved for ``variant`` (the default variant when None)."""
        source = self.template or self
        if not source.params:
            return self
        chosen = variant if variant is not None else default_variant(source.param_space)
        choices = tuple(replace(c, text=render(c.text, chosen), feedback=render(c.feedback, chosen),
                                correct=c.correct_in(chosen)) for c in source.choices)
        return replace(source, question=render(source.question, chosen), choices=choices,
                       explanation=render(source.explanation, chosen), template=source,
                       variant=tuple(chosen.items()))


@dataclass(frozen=True)
class Provenance:
    """Where a recorded output came from."""

    timestamp: str
    python: str
    jax: str
    jaxlib: str
    backend: str
    device_count: int
    source_sha256: str


@dataclass(frozen=True)
class Receipt:
    """The recorded reference execution of ``code/main.py`` (``receipt.json``)."""

    provenance: Provenance
    command: str
    output: str


@dataclass(frozen=True)
class Figure:
    """A figure drawn by ``figure/make_figure.py`` from a recorded CPU computation."""

    script_path: Path
    image_path: Path
    data_path: Path
    alt: str
    caption: str
    predict: str
    reading: tuple[Section, ...]
    provenance: Provenance | None


@dataclass(frozen=True)
class Lesson:
    id: str
    slug: str
    phase_id: str
    order: int
    title: str
    revision: str
    minutes: int
    hardware: str
    summary: str
    prerequisites: tuple[str, ...]
    objectives: tuple[str, ...]
    problem: str
    sections: tuple[Section, ...]
    figure: Figure
    steps: tuple[BuildStep, ...]
    main_path: Path
    main_code: str
    expected_output: str
    receipt: Receipt | None
    experiments: tuple[Experiment, ...]
    exercises: tuple[Exercise, ...]
    checkpoint: Checkpoint
    diagnose: str
    carry_forward: tuple[str, ...]
    evidence_template: str
    references: tuple[Reference, ...]
    dir: Path

    @property
    def cumulative_code(self) -> str:
        """The build steps appended in order: what a learner building step by step has."""
        return "\n\n".join(step.code for step in self.steps) + "\n"

    @property
    def relpath(self) -> str:
        """Path of the lesson folder in the repository and the learner ZIP."""
        return f"phases/{self.phase_id}/{self.slug}"


@dataclass(frozen=True)
class ProjectStage:
    number: int
    title: str
    description: str


@dataclass(frozen=True)
class CheckTitle:
    """One of a gradable's checks as a learner may read it before submitting: its title and
    points (what it tests; never its hidden inputs)."""

    title: str
    points: float


@dataclass(frozen=True)
class Project:
    """A phase's integration project (``projects/<slug>/``)."""

    id: str
    slug: str
    phase_id: str
    title: str
    summary: str
    checkpoint_prompt: str
    stages: tuple[ProjectStage, ...]
    guide_md: str
    dir: Path
    exercise: Exercise | None = None
    """The gradable project (``projects/<slug>/checks.py``): the learner submits
    ``starter/model.py``, whose functions the hidden stage checks call."""
    checks: tuple[CheckTitle, ...] = ()
    """Its checks in the order they run (``checks.py``), shown on the project page."""


@dataclass(frozen=True)
class SelfCheck:
    """A study-guide question, its answer, and the id of the lesson that teaches it."""

    question: str
    answer: str
    lesson: str


@dataclass(frozen=True)
class Phase:
    id: str
    number: int
    title: str
    summary: str
    lessons: tuple[Lesson, ...]
    project: Project | None
    how_to_study: tuple[str, ...] = ()
    self_check: tuple[SelfCheck, ...] = ()


@dataclass(frozen=True)
class Course:
    title: str
    version: str
    root: Path
    phases: tuple[Phase, ...] = field(default_factory=tuple)

    def lessons(self) -> list[Lesson]:
        return [lesson for phase in self.phases for lesson in phase.lessons]

    def lesson(self, lesson_id: str) -> Lesson | None:
        return next((lesson for lesson in self.lessons() if lesson.id == lesson_id), None)

    def exercises(self) -> list[tuple[Lesson, Exercise]]:
        return [(lesson, ex) for lesson in self.lessons() for ex in lesson.exercises]

    def gradables(self) -> list[tuple[Lesson, Exercise]]:
        """The lessons' exercises, then each phase's gradable project (paired with the
        phase's last lesson): everything the grader grades."""
        return self.exercises() + [
            (phase.lessons[-1], phase.project.exercise) for phase in self.phases
            if phase.project and phase.project.exercise and phase.lessons]

    def exercise(self, exercise_id: str) -> tuple[Lesson, Exercise] | None:
        return next((pair for pair in self.gradables() if pair[1].id == exercise_id), None)

    def checkpoint(self, checkpoint_id: str) -> tuple[Lesson, Checkpoint] | None:
        return next(
            ((lesson, lesson.checkpoint) for lesson in self.lessons()
             if lesson.checkpoint.id == checkpoint_id),
            None,
        )
