"""The grading desk's forms, validated and bounded before anything is stored (marshmallow)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from marshmallow import Schema, ValidationError, fields, post_load, pre_load, validate

REASON = validate.Length(min=1, max=500, error="give a reason of 1 to 500 characters")


def _strip_empty(data: Any) -> dict[str, Any]:
    """Form fields as strings, empty ones left out (an empty date means "no date")."""
    if not hasattr(data, "items"):
        raise ValidationError("expected form fields")
    return {k: v.strip() for k, v in data.items() if isinstance(v, str) and v.strip()}


class _Form(Schema):
    class Meta:
        unknown = "exclude"  # the launch and CSRF tokens ride along

    @pre_load
    def _clean(self, data: Any, **_: Any) -> dict[str, Any]:
        return _strip_empty(data)


def _utc(value: datetime | None) -> datetime | None:
    """A datetime-local field is read as UTC (the page says so)."""
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class AllowanceForm(_Form):
    extra_attempts = fields.Integer(load_default=0, strict=False,
                                    validate=validate.Range(min=-100, max=100))
    due_at = fields.DateTime(load_default=None, format="%Y-%m-%dT%H:%M")
    reason = fields.String(required=True, validate=REASON)

    @post_load
    def _zone(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        data["due_at"] = _utc(data["due_at"])
        if not data["extra_attempts"] and data["due_at"] is None:
            raise ValidationError("give extra attempts, an extension, or both")
        return data


class ManualScoreForm(_Form):
    """A new score, or an adjustment (points added to or taken from the current score)."""

    score = fields.Float(load_default=None, allow_nan=False,
                         validate=validate.Range(min=0, max=10_000))
    adjust = fields.Float(load_default=None, allow_nan=False,
                          validate=validate.Range(min=-10_000, max=10_000))
    reason = fields.String(required=True, validate=REASON)
    submission_id = fields.String(load_default=None, validate=validate.Length(max=36))

    @post_load
    def _one(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        if (data["score"] is None) == (data["adjust"] is None):
            raise ValidationError("give either a score or an adjustment")
        return data


class DueForm(_Form):
    due_at = fields.DateTime(load_default=None, format="%Y-%m-%dT%H:%M")

    @post_load
    def _zone(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        data["due_at"] = _utc(data["due_at"])
        return data


def messages(exc: ValidationError) -> list[str]:
    raw = exc.messages
    if isinstance(raw, dict):
        return [f"{k}: {m}" if k != "_schema" else str(m) for k, v in raw.items()
                for m in (v if isinstance(v, list) else [v])]
    return [str(m) for m in raw]
