"""The WSGI entry point for gunicorn: ``gunicorn lti_service.wsgi:app``.

Logging is set up here, not in ``create_app``: the process owns its log handlers (JSON lines on
stderr, which gunicorn and systemd collect), while tests build many apps in one process.
"""

from pathways import logs

from . import create_app
from .config import Config

config = Config.from_env()
logs.configure(config.log_level)
app = create_app(config)
