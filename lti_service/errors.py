"""Every error answered in one place: JSON (with field messages) under /api, HTML elsewhere.

Log lines name the error and the path, never a token, a form body or learner code.
"""

from __future__ import annotations

import logging

from flask import Flask, jsonify, render_template, request
from marshmallow import ValidationError
from werkzeug.exceptions import HTTPException

from .services.errors import ServiceError

log = logging.getLogger(__name__)


def _wants_json() -> bool:
    return request.path.startswith("/api/")


def _answer(status: int, message: str, fields: dict | None = None):  # type: ignore[no-untyped-def]
    if _wants_json():
        body: dict = {"error": message}
        if fields:
            body["fields"] = fields
        return jsonify(body), status
    return render_template("message.html", title="Cannot continue", message=message), status


def register(app: Flask) -> None:
    @app.errorhandler(ServiceError)
    def service_error(exc: ServiceError):  # type: ignore[no-untyped-def]
        log.warning("%s %s -> %s %s: %s", request.method, request.path, exc.status,
                    type(exc).__name__, exc.message)
        fields = {exc.field: [exc.message]} if exc.field else None
        return _answer(exc.status, exc.message, fields)

    @app.errorhandler(ValidationError)
    def validation_error(exc: ValidationError):  # type: ignore[no-untyped-def]
        log.info("%s %s -> 422 invalid fields %s", request.method, request.path,
                 sorted(exc.messages) if isinstance(exc.messages, dict) else "")
        fields = exc.messages if isinstance(exc.messages, dict) else {"_schema": exc.messages}
        return _answer(422, "the request body has invalid fields", fields)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):  # type: ignore[no-untyped-def]
        if exc.code and exc.code >= 500:
            log.error("%s %s -> %s", request.method, request.path, exc.code)
        return _answer(exc.code or 500, exc.description or exc.name)
