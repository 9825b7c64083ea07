"""The schemas of course.yaml, phase.yaml, project.yaml, receipt.json and figure/data.json."""

from __future__ import annotations

from marshmallow import fields, validate

from course.devices import MAX_DEVICES
from course.schemas.base import Bool, Int, StrictSchema, Text

SLUG = validate.Regexp(r"^[a-z0-9]+(-[a-z0-9]+)*$",
                       error="must be a lowercase slug such as `arrays-audit` (a-z, 0-9, -)")
PHASE_DIR = validate.Regexp(r"^\d\d-[a-z0-9]+(-[a-z0-9]+)*$",
                            error="must be a phase folder name such as `01-arrays`")


class CourseSchema(StrictSchema):
    """course.yaml: the course and its phases, in order (phase folder names)."""

    schema = Int()
    title = Text()
    version = Text()
    phases = fields.List(fields.String(validate=PHASE_DIR), required=True,
                         validate=validate.Length(min=1))


class SelfCheckSchema(StrictSchema):
    """One self-check question of a phase's study guide, the lesson that answers it, and the
    answer (shown on request)."""

    question = Text()
    answer = Text()
    lesson = Text(validate=SLUG)


class PhaseSchema(StrictSchema):
    """phases/<NN-slug>/phase.yaml."""

    schema = Int()
    id = Text(validate=SLUG)
    number = Int(validate=validate.Range(min=1))
    title = Text()
    summary = Text()
    project = fields.String(load_default=None, validate=SLUG)
    lesson_prefix = fields.String(load_default=None, validate=SLUG)
    """Lesson ids are ``<lesson_prefix>-NN``; default: the folder name without its number (a
    published id outlives a renamed folder, so the two may differ)."""
    how_to_study = fields.List(Text(), load_default=list)
    """The study guide's "How to study": one paragraph per item, in order."""
    self_check = fields.List(fields.Nested(SelfCheckSchema), load_default=list)


class StageSchema(StrictSchema):
    number = Int(validate=validate.Range(min=1))
    title = Text()
    description = Text()


class ProjectSchema(StrictSchema):
    """projects/<slug>/project.yaml (its folder name is the slug; the id is project.<slug>)."""

    schema = Int()
    slug = Text(validate=SLUG)
    title = Text()
    summary = Text()
    checkpoint_prompt = Text()
    stages = fields.List(fields.Nested(StageSchema), required=True,
                         validate=validate.Length(min=1))
    devices = Int(required=False, load_default=1,
                  validate=validate.Range(min=1, max=MAX_DEVICES))
    """Logical CPU devices the grader gives the project's runs (docs/AUTHORING.md)."""


class ProvenanceSchema(StrictSchema):
    timestamp = Text()
    python = Text()
    jax = Text()
    jaxlib = Text()
    backend = Text()
    device_count = Int(validate=validate.Range(min=1))
    source_sha256 = Text(validate=validate.Regexp(r"^[0-9a-f]{64}$",
                                                  error="must be 64 lowercase hex digits"))


class ReceiptSchema(StrictSchema):
    """receipt.json: the recorded reference run of code/main.py (written by `record`)."""

    schema = Int()
    command = Text()
    output = fields.String(required=True)
    provenance = fields.Nested(ProvenanceSchema, required=True)


class FigureDataSchema(StrictSchema):
    """figure/data.json (written by figure/make_figure.py)."""

    schema = Int()
    data = fields.Raw(required=True)
    provenance = fields.Nested(ProvenanceSchema, required=True)
    # true: the data are measurements (timings), so `check` compares their structure, not values
    measured = Bool(required=False, load_default=False)


__all__ = ["Bool", "CourseSchema", "FigureDataSchema", "PhaseSchema", "ProjectSchema",
           "ProvenanceSchema", "ReceiptSchema", "SLUG", "SelfCheckSchema", "StageSchema"]
