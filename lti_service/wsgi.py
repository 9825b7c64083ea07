"""The WSGI entry point for gunicorn: ``gunicorn lti_service.wsgi:app``.

Logging is set up here, not in ``create_app``: the process owns its log handlers (JSON lines on
stderr, which gunicorn and systemd collect), while tests build many apps in one process.
The course is loaded here too, before any worker takes traffic: with gunicorn's
``preload_app`` (deploy/gunicorn.conf.py) every worker is forked with it loaded, so a reload
(HUP) or a new worker never answers its first requests cold.
"""

from lti_service import create_app
from lti_service.core.config import Config
from lti_service.core.extensions import State
from pathways import logs

config = Config.from_env()
logs.configure(config.log_level)
app = create_app(config)
pathways_state: State = app.extensions["pathways"]
pathways_state.course.get()
