"""The grading job: the only thing a grader sees (docs/CONTRACTS.md section 5)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from grading_contract.errors import JobError

MAX_SOURCE_BYTES = 256 * 1024
KINDS = ("grade", "run")
"""``grade``: score the submission with every check; ``run``: the learner's "Run" button, the
program on its visible examples only (no hidden input, no hidden check, no score)."""


class JobSchema(Schema):
    submission_id = fields.String(required=True, validate=validate.Length(min=1, max=100))
    attempt = fields.Integer(required=True, validate=validate.Range(min=1))
    exercise_id = fields.String(required=True, validate=validate.Length(min=1, max=200))
    source = fields.String(required=True, validate=validate.Length(max=MAX_SOURCE_BYTES))
    limits = fields.Dict(keys=fields.String(), load_default=dict)
    enqueued_at = fields.Float(required=True)
    variant = fields.Dict(keys=fields.String(validate=validate.Length(max=50)),
                          validate=validate.Length(max=20), load_default=dict)
    course_version = fields.String(load_default="", validate=validate.Length(max=100))
    checks_hash = fields.String(load_default="", validate=validate.Length(max=64))
    kind = fields.String(load_default="grade", validate=validate.OneOf(KINDS))


@dataclass(frozen=True)
class Job:
    submission_id: str
    """The service's submission id (opaque here)."""
    attempt: int
    """Grading try number (the lease's attempt count), 1 for the first try."""
    exercise_id: str
    """Content id of the exercise, e.g. ``arrays-04.exercise.mask-tail``."""
    source: str
    """The learner's whole main.py."""
    enqueued_at: float
    """Unix time the service enqueued this try (for queued_s)."""
    limits: dict[str, Any] = field(default_factory=dict)
    """Limits the service asks for (clipped to the worker's ceiling)."""
    variant: dict[str, Any] = field(default_factory=dict)
    """The learner's exercise variant (``course.variants``); the grader refuses one the
    exercise does not declare."""
    course_version: str = ""
    """The course version the service showed the learner (empty: not stated)."""
    checks_hash: str = ""
    """The exercise's checks hash the service expects (empty: not stated); the result says
    which checks actually graded it."""
    kind: str = "grade"
    """One of KINDS."""

    def to_dict(self) -> dict[str, Any]:
        return {"submission_id": self.submission_id, "attempt": self.attempt,
                "exercise_id": self.exercise_id, "source": self.source,
                "limits": dict(self.limits), "enqueued_at": self.enqueued_at,
                "variant": dict(self.variant), "course_version": self.course_version,
                "checks_hash": self.checks_hash, "kind": self.kind}


def parse_job(data: Any) -> Job:
    """Validate a job message; raises JobError naming every bad field."""
    if not isinstance(data, dict):
        raise JobError(f"a grading job must be a mapping, got {type(data).__name__}")
    try:
        loaded = JobSchema().load(data)
    except ValidationError as exc:
        raise JobError(f"malformed grading job: {exc.messages}") from exc
    return Job(**loaded)
