"""The security headers on every answer: a Content-Security-Policy, ``nosniff``, a referrer policy.

The tool's pages load only their own scripts and styles: ``script-src 'self'`` with no inline
script or event handler anywhere (``static/*.js`` do what inline scripts did), so a stored-XSS
payload that slipped past escaping still could not run. Inline styles stay allowed (the layout
inlines the course stylesheet; the editor sets styles). ``frame-ancestors`` is the tool itself
and the registered platforms' origins (issuer, login, token and key-set URLs, and the operator's
allow-list for each): only an LMS we know may frame a page that carries a launch. The origins
are read from the database again when this process added, changed or removed a platform (an
ORM event), and at most every ``ORIGINS_TTL_S`` otherwise: a platform another process
registered (``pathways platform add``) may frame the tool within that time.
"""

from __future__ import annotations

import logging
import time
from urllib.parse import urlsplit

from flask import Flask, Response, current_app
from sqlalchemy import event, select
from sqlalchemy.exc import SQLAlchemyError

from lti_service.core.extensions import state
from lti_service.core.models import Platform

log = logging.getLogger(__name__)
ORIGINS_TTL_S = 30.0
CACHE_KEY = "pathways.frame_ancestors"
POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
          "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; "
          "base-uri 'none'; frame-ancestors {ancestors}")


def _origin(url: str | None) -> str | None:
    """``scheme://host[:port]`` of an http(s) URL, as a CSP source expression; else None."""
    try:
        parts = urlsplit(url or "")
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    if not all(c.isalnum() or c in ".-[]:" for c in host):
        return None
    return f"{parts.scheme}://{host}" + (f":{port}" if port is not None else "")


_changes = [0]
"""How many times this process wrote a platform row (the cache is read again after one)."""


def _platform_written(*_: object) -> None:
    _changes[0] += 1


for _event in ("after_insert", "after_update", "after_delete"):
    event.listen(Platform, _event, _platform_written)


def platform_origins(app: Flask) -> tuple[str, ...]:
    """Every registered platform's origins, cached per process (module docstring)."""
    cached = app.extensions.get(CACHE_KEY)
    now = time.monotonic()
    if cached is not None and cached[0] > now and cached[1] == _changes[0]:
        return cached[2]  # type: ignore[no-any-return]
    written = _changes[0]
    found: set[str] = set()
    try:
        with state(app).sessions() as session:
            for row in session.execute(select(
                    Platform.issuer, Platform.auth_login_url, Platform.auth_token_url,
                    Platform.key_set_url, Platform.service_origins)):
                for url in (*row[:4], *(row[4] or [])):
                    origin = _origin(url)
                    if origin:
                        found.add(origin)
    except SQLAlchemyError as exc:  # no database yet (before `pathways db upgrade`)
        log.warning("frame-ancestors: platforms not readable (%s)", type(exc).__name__)
    origins = tuple(sorted(found))
    app.extensions[CACHE_KEY] = (now + ORIGINS_TTL_S, written, origins)
    return origins


def content_security_policy(origins: tuple[str, ...]) -> str:
    return POLICY.format(ancestors=" ".join(("'self'", *origins)))


def register(app: Flask) -> None:
    platform_origins(app)  # warm: a request never pays for the first read

    @app.after_request
    def _security_headers(response: Response) -> Response:
        headers = response.headers
        headers.setdefault("Content-Security-Policy",
                           content_security_policy(platform_origins(current_app)))
        headers.setdefault("X-Content-Type-Options", "nosniff")
        # Pages carry the launch token in their URL; never hand it to another site.
        headers.setdefault("Referrer-Policy", "same-origin")
        return response
