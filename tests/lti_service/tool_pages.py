"""Reading the tool's pages the way a browser does: the launch token, the placement, a form's
hidden fields; and ``recorded``, what a refused request must leave unchanged."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlparse

import requests
from sqlalchemy import func, select

from devlms.browser import forms
from lti_service.checkpoints.models import CheckpointAttempt
from lti_service.core.models import Placement
from lti_service.outbox.models import ScoreOutbox
from lti_service.submissions.models import Submission

CHECKPOINT = "arrays-04.checkpoint"
EXERCISE = "arrays-04.exercise.mask-tail"


def token(page: requests.Response) -> str:
    return parse_qs(urlparse(page.url).query)["lt"][0]


def placement_id(page: requests.Response) -> int:
    return int(urlparse(page.url).path.rstrip("/").split("/")[-1])


def hidden(page: requests.Response, action_suffix: str) -> dict[str, str]:
    """The hidden launch and CSRF fields of the page's form that posts to ``action_suffix``."""
    form = next(f for f in forms(page.text)[0] if f.action.split("?")[0].endswith(action_suffix))
    return {k: v for k, v in form.fields if k in ("lt", "csrf_token")}


def api(stack: Any, method: str, path: str, token: str, **kw: Any) -> requests.Response:
    return requests.request(method, stack.tool_url + path, timeout=30,
                            headers={"X-Pathways-Launch": token}, **kw)


def recorded(stack: Any) -> dict[str, Any]:
    """Everything a refused request must leave as it was."""
    with stack.db() as session:
        return {
            "attempts": session.scalar(select(func.count()).select_from(CheckpointAttempt)),
            "outbox": [(o.status, o.score) for o in session.scalars(select(ScoreOutbox))],
            "submissions": session.scalar(select(func.count()).select_from(Submission)),
            "policies": [(p.id, p.max_attempts, p.counting) for p in session.scalars(
                select(Placement).order_by(Placement.id))],
        }
