"""The service side of grading: learner exercise pages, submissions, the results consumer.

``bp`` (name "submissions") is registered by the app factory when this package imports.
Nothing here imports JAX; grading happens in ``grader_worker`` processes.
"""

from flask import Blueprint

bp = Blueprint("submissions", __name__, template_folder="templates")

from lti_service.submissions import views  # noqa: E402,F401  (routes register on bp)

__all__ = ["bp"]
