"""marshmallow schemas for every content file; strict, versioned (``schema: 1``)."""

from course.schemas.base import CURRENT_VERSION, UPGRADES, load_document
from course.schemas.documents import (
    CourseSchema,
    FigureDataSchema,
    PhaseSchema,
    ProjectSchema,
    ReceiptSchema,
)
from course.schemas.lesson import LessonSchema

__all__ = [
    "CURRENT_VERSION",
    "UPGRADES",
    "CourseSchema",
    "FigureDataSchema",
    "LessonSchema",
    "PhaseSchema",
    "ProjectSchema",
    "ReceiptSchema",
    "load_document",
]
