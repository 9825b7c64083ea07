"""The JAX Pathways course: content model, loader, exercise checks and course tools.

Importable with no Flask and no database: the service and the grader read content through
``load_course()`` and nothing else parses content files.
"""

from course.errors import ContentError, CourseError, Problem
from course.loader import CONTENT_ROOT, load_course
from course.model import (
    BuildStep,
    Checkpoint,
    Choice,
    Course,
    Exercise,
    ExerciseKind,
    Experiment,
    Figure,
    Lesson,
    Phase,
    Project,
    ProjectStage,
    Provenance,
    Receipt,
    Reference,
    Section,
)
from course.submission import submission_for

__all__ = [
    "CONTENT_ROOT",
    "BuildStep",
    "Checkpoint",
    "Choice",
    "ContentError",
    "Course",
    "CourseError",
    "Exercise",
    "ExerciseKind",
    "Experiment",
    "Figure",
    "Lesson",
    "Phase",
    "Problem",
    "Project",
    "ProjectStage",
    "Provenance",
    "Receipt",
    "Reference",
    "Section",
    "load_course",
    "submission_for",
]
