"""devlms: a small LMS on the ``lti1p3platform`` package, for tests, the demo and browser tests.

``create_app(config)`` builds it; ``python -m devlms`` runs it. One course, three people
(teacher, alice, bob), resource links created by deep linking, a gradebook fed through AGS.
State is in memory, or in a state folder (``--state-dir``) that keeps the platform key, the
links, line items and scores across restarts.
"""

from __future__ import annotations

from flask import Flask, request

from .config import DevLmsConfig
from .store import Store


def create_app(config: DevLmsConfig, store: Store | None = None,
               registration_token: str | None = None) -> Flask:
    """``registration_token``: the one-time token Dynamic Registration must present."""
    app = Flask(__name__)
    app.extensions["devlms"] = {"config": config, "store": store or Store(),
                                "registration_token": registration_token}
    from .views import bp

    app.register_blueprint(bp)

    @app.after_request
    def _persist(response):  # type: ignore[no-untyped-def]
        if request.method != "GET" and response.status_code < 400:
            app.extensions["devlms"]["store"].save()
        return response

    return app


__all__ = ["DevLmsConfig", "Store", "create_app"]
