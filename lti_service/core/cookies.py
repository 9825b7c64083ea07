"""The Flask session cookie follows the request's own scheme, not configuration.

Behind a TLS proxy (trusted through ProxyFix) the cookie must be ``SameSite=None; Secure;
Partitioned`` to survive inside an LMS iframe; over plain http (the demo, tests) a ``Secure``
cookie would never come back, so it is ``SameSite=Lax``. Deciding per request means one
deployment serves both without PREFERRED_URL_SCHEME having to match the proxy.
"""

from __future__ import annotations

from flask import Flask, request
from flask.sessions import SecureCookieSessionInterface


class SchemeSessionInterface(SecureCookieSessionInterface):
    """Flask's signed-cookie session with Secure/SameSite/Partitioned chosen per request."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return request.is_secure

    def get_cookie_samesite(self, app: Flask) -> str | None:
        return "None" if request.is_secure else "Lax"

    def get_cookie_partitioned(self, app: Flask) -> bool:
        return request.is_secure
