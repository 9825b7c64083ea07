"""The grading result: one JSON shape (docs/CONTRACTS.md section 4), close to Gradescope's.

Dataclasses say what each field means; ``ResultSchema`` is what the service validates an
incoming result with, so a malformed or forged message is rejected, not recorded.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from marshmallow import Schema, fields, validate

SCHEMA_VERSION = 1

OUTCOMES = (
    "graded",
    "syntax_error",
    "exception",
    "timeout",
    "memory_limit",
    "output_limit",
    "sandbox_violation",
    "infrastructure_error",
    "host_timeout",
    "not_gradable",
)
HOST_OUTCOMES = ("infrastructure_error", "host_timeout")
"""Outcomes caused by the host, not the program: the job is retried, nothing is charged.
``host_timeout``: the run was killed at its wall-clock limit before its own CPU time (the
cgroup's) reached the CPU limit, so the host (a starved CPU), not the program, ran out of time."""
FINAL_NOT_CHARGED = ("not_gradable",)
"""Outcomes that end the job without a score and without a retry: the trusted process could not
grade the report within its own budget (retrying would spend another worker the same way)."""
CHECK_STATUSES = ("passed", "failed", "error")
VISIBILITIES = ("visible", "hidden")


@dataclass
class CheckResult:
    """One hidden or visible check of an exercise, as the learner sees it."""

    name: str
    """The check's title, e.g. "masked holds [1, 2, 0, 0]"."""
    status: str
    """passed | failed | error (the check itself raised)."""
    points: float
    """Points earned."""
    max_points: float
    """Points available."""
    feedback: str
    """What was wrong and what to do; empty when passed."""
    visibility: str = "visible"
    """visible | hidden: hidden checks show their status, never their expectations."""


@dataclass
class Timings:
    """Seconds spent in each phase, measured by the worker."""

    queued_s: float = 0.0
    """From enqueue to the worker picking the job up."""
    run_s: float = 0.0
    """The sandboxed run of the learner's program."""
    total_s: float = 0.0
    """From pick-up to the result being sent."""


@dataclass
class Environment:
    """Where the run happened, so a score can be reproduced."""

    python: str = ""
    """Python version inside the sandbox."""
    jax: str = ""
    """JAX version inside the sandbox."""
    backend: str = ""
    """JAX backend the worker was started for (cpu, tpu)."""
    device_count: int = 0
    """Devices JAX saw inside the sandbox (0 when the program never got that far); for an
    exercise that declares ``devices``, the logical CPU devices its runs were given."""
    host: str = ""
    """Host name of the worker."""
    worker: str = ""
    """Worker id (host:pid)."""


@dataclass
class GradingResult:
    """The result of one grading try of one submission."""

    submission_id: str
    """The service's submission id (opaque to the grader)."""
    attempt: int
    """The grading try (lease attempt) this result belongs to; results are idempotent per
    (submission_id, attempt)."""
    exercise_id: str
    """Content id, e.g. ``arrays-04.exercise.mask-tail``."""
    outcome: str
    """One of OUTCOMES; only ``graded`` means the checks ran."""
    score: float = 0.0
    """Points earned (0 unless graded)."""
    max_score: float = 0.0
    """Points available for the exercise."""
    feedback: str = ""
    """One paragraph a learner can act on."""
    checks: list[CheckResult] = field(default_factory=list)
    """Per-check outcomes (empty unless graded)."""
    stdout: str = ""
    """Excerpt of the program's standard output."""
    stderr: str = ""
    """Excerpt of the program's standard error (tracebacks trimmed to the learner's file)."""
    truncated: dict[str, bool] = field(default_factory=lambda: {"stdout": False, "stderr": False})
    """Whether each excerpt was cut."""
    timings: Timings = field(default_factory=Timings)
    """Seconds per phase."""
    environment: Environment = field(default_factory=Environment)
    """Where it ran."""
    schema: int = SCHEMA_VERSION
    """Version of this shape."""
    course_version: str = ""
    """The worker's course version (course.yaml) whose checks graded this run."""
    checks_hash: str = ""
    """sha256 of the exercise's checks.py and reference solution that graded this run; a
    regrade is due when the course's hash moves on."""
    variant: dict[str, Any] = field(default_factory=dict)
    """The exercise variant it was graded against."""
    seed: int | None = None
    """The seed the hidden inputs were drawn from (function exercises), to reproduce it."""
    kind: str = "grade"
    """The job's kind (``grading_contract.job.KINDS``): a ``run`` result has no score and no
    hidden check."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class CheckSchema(Schema):
    name = fields.String(required=True, validate=validate.Length(max=500))
    status = fields.String(required=True, validate=validate.OneOf(CHECK_STATUSES))
    points = fields.Float(required=True, validate=validate.Range(min=0))
    max_points = fields.Float(required=True, validate=validate.Range(min=0))
    feedback = fields.String(required=True, validate=validate.Length(max=20_000))
    visibility = fields.String(required=True, validate=validate.OneOf(VISIBILITIES))


class TimingsSchema(Schema):
    queued_s = fields.Float(required=True)
    run_s = fields.Float(required=True)
    total_s = fields.Float(required=True)


class EnvironmentSchema(Schema):
    python = fields.String(required=True)
    jax = fields.String(required=True)
    backend = fields.String(required=True)
    device_count = fields.Integer(required=True, validate=validate.Range(min=0))
    host = fields.String(required=True)
    worker = fields.String(required=True)


class ResultSchema(Schema):
    """Validates a result message before the service records it (marshmallow 4)."""

    schema = fields.Integer(required=True, validate=validate.Equal(SCHEMA_VERSION))
    submission_id = fields.String(required=True, validate=validate.Length(min=1, max=100))
    attempt = fields.Integer(required=True, validate=validate.Range(min=1))
    exercise_id = fields.String(required=True, validate=validate.Length(min=1, max=200))
    outcome = fields.String(required=True, validate=validate.OneOf(OUTCOMES))
    score = fields.Float(required=True, validate=validate.Range(min=0))
    max_score = fields.Float(required=True, validate=validate.Range(min=0))
    feedback = fields.String(required=True, validate=validate.Length(max=20_000))
    checks = fields.List(fields.Nested(CheckSchema), required=True)
    stdout = fields.String(required=True, validate=validate.Length(max=100_000))
    stderr = fields.String(required=True, validate=validate.Length(max=100_000))
    truncated = fields.Dict(keys=fields.String(), values=fields.Boolean(), required=True)
    timings = fields.Nested(TimingsSchema, required=True)
    environment = fields.Nested(EnvironmentSchema, required=True)
    course_version = fields.String(load_default="", validate=validate.Length(max=100))
    checks_hash = fields.String(load_default="", validate=validate.Length(max=64))
    variant = fields.Dict(keys=fields.String(validate=validate.Length(max=50)),
                          validate=validate.Length(max=20), load_default=dict)
    seed = fields.Integer(load_default=None, allow_none=True)
    kind = fields.String(load_default="grade", validate=validate.OneOf(("grade", "run")))


def result_from_dict(data: dict[str, Any]) -> GradingResult:
    """Validate ``data`` and build the dataclass (raises marshmallow.ValidationError)."""
    loaded = ResultSchema().load(data)
    return GradingResult(
        **{k: v for k, v in loaded.items() if k not in ("checks", "timings", "environment")},
        checks=[CheckResult(**c) for c in loaded["checks"]],
        timings=Timings(**loaded["timings"]),
        environment=Environment(**loaded["environment"]),
    )
