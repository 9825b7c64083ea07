"""The LTI 1.3 tool service: ``create_app(config=None)`` builds the Flask app.

Blueprints by audience: ``lti`` (protocol), ``learner``, ``instructor``, ``api`` (JSON) and
``submissions`` (exercise pages). Every one always ships: an ImportError is a bug and fails here.
"""

from __future__ import annotations

from typing import Any

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from lti_service.core.auth import form_fields
from lti_service.core.config import Config
from lti_service.core.cookies import SchemeSessionInterface
from lti_service.core.course_source import CourseSource
from lti_service.core.db import make_engine, make_session_factory
from lti_service.core.extensions import State, close_db
from lti_service.core.jsonio import BoundedJSONProvider


def create_app(config: Config | dict[str, Any] | None = None) -> Flask:
    cfg = config if isinstance(config, Config) else Config.from_env(config)
    app = Flask(__name__)
    app.json = BoundedJSONProvider(app)
    app.config.update(
        SECRET_KEY=cfg.secret_key,
        PREFERRED_URL_SCHEME=cfg.preferred_url_scheme,
        SESSION_COOKIE_HTTPONLY=True,
        MAX_CONTENT_LENGTH=2 * 1024 * 1024,
    )
    app.session_interface = SchemeSessionInterface()
    if cfg.proxy_fix:
        hops = cfg.proxy_fix
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops,  # type: ignore[method-assign]
                                x_port=hops, x_prefix=hops)
    engine = make_engine(cfg.database_url)
    app.extensions["pathways"] = State(
        config=cfg,
        engine=engine,
        sessions=make_session_factory(engine),
        course=CourseSource(cfg.course_root, cfg.extra.get("course")),
    )
    app.teardown_appcontext(close_db)

    @app.context_processor
    def _form_fields() -> dict[str, object]:
        # Every state-changing form renders these hidden fields (launch token, CSRF token).
        return {"form_fields": form_fields()}

    from lti_service.checkpoints.views import bp as api_bp
    from lti_service.core import headers, presentation
    from lti_service.core import http_errors as errors
    from lti_service.instructor.views import bp as instructor_bp
    from lti_service.learner.views import bp as learner_bp
    from lti_service.lti import views as lti_views
    from lti_service.submissions import bp as submissions_bp

    errors.register(app)
    headers.register(app)
    presentation.register(app)
    for bp in (lti_views.bp, learner_bp, instructor_bp, api_bp, submissions_bp):
        app.register_blueprint(bp)
    from lti_service.cli import register as register_cli

    register_cli(app)
    return app
