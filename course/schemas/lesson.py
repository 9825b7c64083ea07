"""The schema of lesson.md's front matter (docs/CONTRACTS.md section 1)."""

from __future__ import annotations

from marshmallow import ValidationError, fields, validate, validates_schema

from course.schemas.base import Bool, Int, StrictSchema, Text, TextList
from course.schemas.documents import SLUG

LESSON_ID = validate.Regexp(r"^[a-z0-9]+-\d\d$",
                            error="must be a lesson id such as `arrays-04` (phase slug, -, NN)")


class ReadingSchema(StrictSchema):
    title = Text()
    body = Text()


class FigureSchema(StrictSchema):
    alt = Text()
    caption = Text()
    predict = Text()
    reading = fields.List(fields.Nested(ReadingSchema), required=True)


class StepSchema(StrictSchema):
    region = Text(validate=validate.Regexp(r"^[a-z0-9]+(-[a-z0-9]+)*$",
                                           error="must be a region name such as `step-1`"))
    title = Text()
    intro = Text()
    building_blocks = TextList()
    why = Text()


class ExperimentSchema(StrictSchema):
    slug = Text(validate=SLUG)
    title = Text()
    expected = Text()
    explanation = Text()


class ExerciseSchema(StrictSchema):
    slug = Text(validate=SLUG)
    kind = Text(validate=validate.OneOf(["exercise", "practice", "challenge"]))
    title = Text()
    prompt = Text()
    guide = TextList()
    plan = TextList(validate=validate.Length(min=1))
    hints = TextList(load_default=list, required=False)
    reasoning = Text()


class ChoiceSchema(StrictSchema):
    key = Text(validate=validate.Regexp(r"^[a-z]$", error="must be one lowercase letter"))
    text = Text()
    correct = Bool()
    feedback = Text()


class CheckpointSchema(StrictSchema):
    question = Text()
    choices = fields.List(fields.Nested(ChoiceSchema), required=True)
    explanation = Text()

    @validates_schema
    def _one_correct(self, data: dict, **_: object) -> None:
        choices = data.get("choices") or []
        if not 3 <= len(choices) <= 5:
            raise ValidationError(f"a checkpoint needs 3 to 5 choices, this one has "
                                  f"{len(choices)}", "choices")
        correct = [c["key"] for c in choices if c.get("correct")]
        if len(correct) != 1:
            raise ValidationError(
                f"exactly one choice must have `correct: true`, found {len(correct)}"
                + (f" ({', '.join(correct)})" if correct else ""),
                "choices",
            )
        keys = [c["key"] for c in choices]
        duplicates = sorted({k for k in keys if keys.count(k) > 1})
        if duplicates:
            raise ValidationError(f"choice keys repeat: {', '.join(duplicates)}", "choices")


class ReferenceSchema(StrictSchema):
    title = Text()
    url = Text(validate=validate.URL(error="must be an http(s) URL"))


class LessonSchema(StrictSchema):
    """lesson.md front matter."""

    schema = Int()
    id = Text(validate=LESSON_ID)
    title = Text()
    order = Int(validate=validate.Range(min=1))
    revision = Text()
    minutes = Int(validate=validate.Range(min=1))
    hardware = Text(validate=validate.OneOf(["cpu", "gpu", "tpu"]))
    summary = Text()
    prerequisites = fields.List(fields.String(validate=LESSON_ID), required=True)
    objectives = TextList(validate=validate.Length(min=1))
    problem = Text()
    figure = fields.Nested(FigureSchema, required=True)
    steps = fields.List(fields.Nested(StepSchema), required=True, validate=validate.Length(min=1))
    expected_output = Text()
    experiments = fields.List(fields.Nested(ExperimentSchema), required=True)
    exercises = fields.List(fields.Nested(ExerciseSchema), required=True,
                            validate=validate.Length(min=1))
    checkpoint = fields.Nested(CheckpointSchema, required=True)
    diagnose = Text()
    carry_forward = TextList(validate=validate.Length(min=1))
    references = fields.List(fields.Nested(ReferenceSchema), required=True)
