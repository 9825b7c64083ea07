"""The WSGI entry point for gunicorn: ``gunicorn lti_service.wsgi:app``."""

from . import create_app

app = create_app()
