"""The WSGI entry point for gunicorn: ``gunicorn lti_service.wsgi:app``.

Logging is set up here, not in ``create_app``: the process owns its log handlers (JSON lines on
stderr, which gunicorn and systemd collect), while tests build many apps in one process.
"""

from lti_service import create_app
from lti_service.core.config import Config
from pathways import logs

config = Config.from_env()
logs.configure(config.log_level)
app = create_app(config)
