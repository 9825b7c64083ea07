"""Every error answered in one place: JSON (with field messages) under /api, HTML elsewhere.

Log lines name the error and the path, never a token, a form body or learner code. What comes
back is bounded too: messages are cut at ``MAX_MESSAGE`` characters and field names (which an
unknown-field error takes from the request) at ``MAX_FIELD``, so no answer or log line carries a
request value longer than a short excerpt.
"""

from __future__ import annotations

import errno
import logging

from flask import Flask, jsonify, make_response, render_template, request
from marshmallow import ValidationError
from sqlalchemy import exc as sa_exc
from werkzeug.exceptions import HTTPException

from lti_service.core.errors import ServiceError

log = logging.getLogger(__name__)
MAX_MESSAGE = 500
MAX_FIELD = 40
MAX_FIELDS = 20


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _bounded(messages: object) -> object:
    """marshmallow's field messages with every key and text cut (they may echo the request)."""
    if isinstance(messages, dict):
        return {_cut(str(k), MAX_FIELD): _bounded(v)
                for k, v in list(messages.items())[:MAX_FIELDS]}
    if isinstance(messages, list):
        return [_bounded(m) for m in messages[:MAX_FIELDS]]
    return _cut(str(messages), MAX_MESSAGE)


def _wants_json() -> bool:
    return request.path.startswith("/api/")


def _answer(status: int, message: str, fields: dict | None = None):  # type: ignore[no-untyped-def]
    message = _cut(message, MAX_MESSAGE)
    if _wants_json():
        body: dict = {"error": message}
        if fields:
            body["fields"] = _bounded(fields)
        return jsonify(body), status
    return render_template("message.html", title="Cannot continue", message=message), status


RETRY_AFTER_S = 5
UNAVAILABLE = ("We could not save or load this just now: the service's storage is briefly "
               "unavailable (a problem on our side, not yours). Please try again in a moment.")


def unavailable(exc: BaseException):  # type: ignore[no-untyped-def]
    """503 with Retry-After for a database that is down or a disk that is full: the learner
    is told to try again, the log names the fault (never the URL: it carries the token)."""
    log.error("%s %s -> 503 storage unavailable: %s", request.method, _cut(request.path, 200),
              type(exc).__name__)
    body, status = _answer(503, UNAVAILABLE)
    response = make_response(body, status)
    response.headers["Retry-After"] = str(RETRY_AFTER_S)
    return response


def register(app: Flask) -> None:
    @app.errorhandler(ServiceError)
    def service_error(exc: ServiceError):  # type: ignore[no-untyped-def]
        log.warning("%s %s -> %s %s: %s", request.method, _cut(request.path, 200), exc.status,
                    type(exc).__name__, _cut(exc.message, MAX_MESSAGE))
        fields = {exc.field: [exc.message]} if exc.field else None
        return _answer(exc.status, exc.message, fields)

    @app.errorhandler(ValidationError)
    def validation_error(exc: ValidationError):  # type: ignore[no-untyped-def]
        log.info("%s %s -> 422 invalid fields %s", request.method, _cut(request.path, 200),
                 sorted(_bounded(exc.messages)) if isinstance(exc.messages, dict) else "")  # type: ignore[call-overload]
        fields = exc.messages if isinstance(exc.messages, dict) else {"_schema": exc.messages}
        return _answer(422, "the request body has invalid fields", fields)

    @app.errorhandler(sa_exc.OperationalError)
    @app.errorhandler(sa_exc.InterfaceError)
    @app.errorhandler(sa_exc.TimeoutError)
    @app.errorhandler(sa_exc.PendingRollbackError)
    def database_unavailable(exc: Exception):  # type: ignore[no-untyped-def]
        return unavailable(exc)

    @app.errorhandler(OSError)
    def os_error(exc: OSError):  # type: ignore[no-untyped-def]
        if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO):
            return unavailable(exc)
        raise exc

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):  # type: ignore[no-untyped-def]
        if exc.code and exc.code >= 500:
            log.error("%s %s -> %s", request.method, _cut(request.path, 200), exc.code)
        return _answer(exc.code or 500, exc.description or exc.name)
