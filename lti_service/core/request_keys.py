"""The request key of a state-changing request: a repeat of the same key (a second click, a
client's retry after a timeout, a reload) is the same attempt, answered with the first result.

Pages carry it as the hidden ``request_key`` field (``auth.form_fields`` makes a new one per
render; the live exercise panel makes a new one after each submission); JSON clients send the
``Idempotency-Key`` header (or a ``request_key`` field). Bounded and plain before any use.
"""

from __future__ import annotations

import re
import uuid

from flask import abort, request

FIELD = "request_key"
HEADER = "Idempotency-Key"
_KEY = re.compile(r"[A-Za-z0-9_-]{8,64}")


def new_key() -> str:
    return uuid.uuid4().hex


def valid(value: object) -> str | None:
    """``value`` as a request key, None when absent; a malformed one is refused (400)."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not _KEY.fullmatch(value):
        abort(400, f"{HEADER} (or {FIELD}) must be 8 to 64 letters, digits, '-' or '_'")
    return value


def from_request(body_value: object = None) -> str | None:
    """The key of this request: the header, else the JSON body's or the form's field."""
    if request.headers.get(HEADER) is not None:
        return valid(request.headers.get(HEADER))
    if body_value is not None:
        return valid(body_value)
    return valid(request.form.get(FIELD)) if request.form else None
