"""The schema of lesson.md's front matter (docs/CONTRACTS.md section 1)."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from course.devices import MAX_DEVICES
from course.schemas.base import Bool, Int, StrictSchema, Text, TextList
from course.schemas.documents import SLUG
from course.variants import fields as template_fields
from course.variants import render, variant_space

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
    devices = Int(required=False, load_default=1,
                  validate=validate.Range(min=1, max=MAX_DEVICES))
    """Logical CPU devices the grader gives this exercise's runs (docs/AUTHORING.md)."""


PARAM_NAME = validate.Regexp(r"^[A-Za-z_][A-Za-z0-9_]*$",
                             error="must be a parameter name such as `i` or `length`")
MAX_VARIANTS = 64


class ChoiceSchema(StrictSchema):
    key = Text(validate=validate.Regexp(r"^[a-z]$", error="must be one lowercase letter"))
    text = Text()
    correct = Bool(required=False)
    correct_when = fields.Dict(keys=fields.String(), values=fields.List(fields.Raw()),
                               required=False)
    """Correct in the variants whose parameters all take one of the listed values."""
    feedback = Text()


class CheckpointSchema(StrictSchema):
    params = fields.Dict(keys=fields.String(validate=PARAM_NAME),
                         values=fields.List(fields.Raw(), validate=validate.Length(min=1)),
                         required=False)
    """Declared parameters: each learner sees one value of each (``{{name}}`` in the texts)."""
    question = Text()
    choices = fields.List(fields.Nested(ChoiceSchema), required=True)
    explanation = Text()

    @validates_schema
    def _well_formed(self, data: dict, **_: object) -> None:
        """Every problem at once: choice count and keys, parameters, and exactly one correct
        choice in every variant."""
        choices = data.get("choices") or []
        params = data.get("params") or {}
        errors: dict[str, list[str]] = {}
        if not 3 <= len(choices) <= 5:
            errors.setdefault("choices", []).append(
                f"a checkpoint needs 3 to 5 choices, this one has {len(choices)}")
        keys = [c["key"] for c in choices]
        duplicates = sorted({k for k in keys if keys.count(k) > 1})
        if duplicates:
            errors.setdefault("choices", []).append(f"choice keys repeat: {', '.join(duplicates)}")
        param_problems = checkpoint_param_problems(params)
        if param_problems:
            errors["params"] = param_problems
        choice_problems = [m for c in choices for m in _choice_problems(c, params)]
        choice_problems += _field_problems(data, params)
        if not choice_problems and not param_problems:
            choice_problems = _correct_problems(choices, params)
        if choice_problems:
            errors.setdefault("choices", []).extend(choice_problems)
        if errors:
            raise ValidationError(errors)


def checkpoint_param_problems(params: dict[str, list[Any]]) -> list[str]:
    out = []
    for name, values in params.items():
        bad = [v for v in values if isinstance(v, bool) or not isinstance(v, int | float | str)]
        if bad:
            out.append(f"parameter `{name}`: values must be numbers or text, not {bad[0]!r}")
        elif len(set(values)) != len(values):
            out.append(f"parameter `{name}` repeats a value")
    if params and len(variant_space(params)) > MAX_VARIANTS:
        out.append(f"the parameters make {len(variant_space(params))} variants, more than "
                   f"{MAX_VARIANTS}")
    return out


def _choice_problems(choice: dict, params: dict[str, list[Any]]) -> list[str]:
    key = choice["key"]
    has_when = "correct_when" in choice
    if has_when == ("correct" in choice):
        return [f"choice {key}: give either `correct` or `correct_when`"
                + (", not both" if has_when else "")]
    out = []
    for name, values in (choice.get("correct_when") or {}).items():
        if name not in params:
            out.append(f"choice {key}: correct_when names `{name}`, which is not a parameter")
        elif any(v not in params[name] for v in values):
            out.append(f"choice {key}: correct_when gives a value of `{name}` that it does "
                       f"not take ({', '.join(map(str, params[name]))})")
    return out


def _field_problems(data: dict, params: dict[str, list[Any]]) -> list[str]:
    texts = [data.get("question", ""), data.get("explanation", "")]
    texts += [c.get(k, "") for c in data.get("choices") or [] for k in ("text", "feedback")]
    unknown = sorted({name for t in texts for name in template_fields(t)} - set(params))
    return [f"`{{{{{name}}}}}` is not a declared parameter" for name in unknown]


def _correct_problems(choices: list[dict], params: dict[str, list[Any]]) -> list[str]:
    if not params:
        correct = [c["key"] for c in choices if c.get("correct")]
        if len(correct) == 1:
            return []
        return [f"exactly one choice must have `correct: true`, found {len(correct)}"
                + (f" ({', '.join(correct)})" if correct else "")]
    out = []
    for variant in variant_space(params):
        correct = [c["key"] for c in choices if choice_correct(c, variant)]
        texts = [render(c["text"], variant) for c in choices]
        named = ", ".join(f"{k}={v}" for k, v in variant.items())
        if len(correct) != 1:
            out.append(f"exactly one choice must be correct in every variant; ({named}) has "
                       f"{len(correct)}" + (f" ({', '.join(correct)})" if correct else ""))
        if len(set(texts)) != len(texts):
            out.append(f"two choices read the same in variant ({named})")
    return out


def choice_correct(choice: dict, variant: dict[str, Any]) -> bool:
    """A choice's correctness in one variant (``correct``, or every ``correct_when`` holds)."""
    when = choice.get("correct_when")
    if when is None:
        return bool(choice.get("correct"))
    return all(variant.get(name) in values for name, values in when.items())


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
