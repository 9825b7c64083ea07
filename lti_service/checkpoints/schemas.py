"""Marshmallow 4 schemas of the JSON API (unknown fields are refused)."""

from __future__ import annotations

from marshmallow import RAISE, Schema, fields, validate

from lti_service.core.placement_policy import COUNTINGS, MAX_ATTEMPTS_LIMIT


class AnswerIn(Schema):
    class Meta:
        unknown = RAISE

    choice = fields.String(required=True, validate=validate.Length(min=1, max=20))
    request_key = fields.String(validate=validate.Regexp(r"^[A-Za-z0-9_-]{8,64}$"))
    """A repeat of the same key returns the first answer's result (or ``Idempotency-Key``)."""


class AnswerOut(Schema):
    attempt_number = fields.Integer()
    correct = fields.Boolean()
    feedback = fields.String()
    explanation = fields.String()
    counted_score = fields.Float()
    attempts_left = fields.Integer()
    choice_label = fields.String()
    """The letter the learner saw beside the choice (A, B, ... in their order)."""
    choice_text = fields.String()


class AttemptOut(Schema):
    attempt_number = fields.Integer()
    choice = fields.String()
    choice_label = fields.String(allow_none=True)
    choice_text = fields.String(allow_none=True)
    correct = fields.Boolean()
    variant = fields.Dict(allow_none=True)
    """The parameters of the variant answered (a parametrised checkpoint), else null."""
    created_at = fields.DateTime()


class PolicyIn(Schema):
    class Meta:
        unknown = RAISE

    # strict: "5" and 2.7 are refused, not coerced (a JSON client sends a number).
    max_attempts = fields.Integer(strict=True,
                                  validate=validate.Range(min=1, max=MAX_ATTEMPTS_LIMIT))
    counting = fields.String(validate=validate.OneOf(list(COUNTINGS)))


class PolicyOut(Schema):
    id = fields.Integer()
    content_id = fields.String()
    max_attempts = fields.Integer()
    counting = fields.String()
