"""The Flask session cookie follows the request's own scheme, not configuration.

Behind a TLS proxy (trusted through ProxyFix) the cookie must be ``SameSite=None; Secure;
Partitioned`` to survive inside an LMS iframe; over plain http (the demo, tests) a ``Secure``
cookie would never come back, so it is ``SameSite=Lax``. Deciding per request means one
deployment serves both without PREFERRED_URL_SCHEME having to match the proxy.
"""

from __future__ import annotations

from flask import Flask, Request, request
from flask.sessions import SecureCookieSessionInterface, SessionMixin

API_PREFIX = "/api/"


class SchemeSessionInterface(SecureCookieSessionInterface):
    """Flask's signed-cookie session with Secure/SameSite/Partitioned chosen per request."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return request.is_secure

    def get_cookie_samesite(self, app: Flask) -> str | None:
        return "None" if request.is_secure else "Lax"

    def get_cookie_partitioned(self, app: Flask) -> bool:
        return request.is_secure

    def open_session(self, app: Flask, request: Request) -> SessionMixin | None:
        # The JSON API (/api/, checkpoints.views) is bearer-only: it never reads or writes the
        # session, so the cookie a browser sends along is not verified there (HMAC, base64 and
        # JSON on every answer of a lecture hall; issue 23).
        if request.path.startswith(API_PREFIX):
            return self.null_session_class()
        return super().open_session(app, request)
