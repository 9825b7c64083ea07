"""The service exception tree: each error says what was wrong and what to do."""

from __future__ import annotations


class ServiceError(Exception):
    """Base of every service error; ``status`` is the HTTP status a view should answer."""

    status = 400

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class NotFound(ServiceError):
    status = 404


class Forbidden(ServiceError):
    status = 403


class Conflict(ServiceError):
    status = 409


class LaunchRejected(ServiceError):
    """An LTI message failed a check; nothing was recorded."""

    status = 400


EXCERPT_CHARS = 40


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """``repr`` of a request value, cut to ``limit`` characters: messages and logs may name what
    was sent, never carry it whole (a megabyte hint, a token, learner text)."""
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text)} characters)"
