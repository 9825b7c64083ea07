"""Who is this request? The LTI-launched user, carried by a signed launch token.

Stable API for other parts (the submissions blueprint codes against it):

- ``current_launch() -> Launch | None``: the launch of this request (``user_id``,
  ``placement_id``, ``context_pk``, ``roles``, ``is_instructor``, ``launch_id``).
- ``@require_learner``: any launched user (an instructor may preview learner pages); answers 401
  with a clear message otherwise. ``@require_instructor``: 403 for everyone else.
- ``launch_url_args()``: the query arguments to keep the launch on a link (``{"lt": token}``).

Why a token and not only a cookie: inside an LMS iframe the browser may block third-party
cookies. The launch token travels in the URL (``lt``), a form field or the ``X-Pathways-Launch``
header; it is signed with SECRET_KEY, expires, and names one user in one LMS course, so a
learner can reach only their own data. The Flask session (SameSite=None; Secure behind TLS) also
holds it for top-level windows.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, TypeVar

from flask import abort, current_app, g, request, session
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from .extensions import state

F = TypeVar("F", bound=Callable[..., Any])
TOKEN_PARAM = "lt"
TOKEN_HEADER = "X-Pathways-Launch"


@dataclass(frozen=True)
class Launch:
    user_id: int
    placement_id: int | None
    context_pk: int
    roles: tuple[str, ...]
    is_instructor: bool
    launch_id: str


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.secret_key, salt="pathways-launch")  # type: ignore[arg-type]


def issue_token(launch: Launch) -> str:
    data = asdict(launch)
    data["roles"] = list(launch.roles)
    return _serializer().dumps(data)


def _read_token(token: str) -> Launch | None:
    try:
        data = _serializer().loads(token, max_age=state().config.launch_token_max_age_s)
    except SignatureExpired:
        abort(401, "your launch has expired: open the activity again from the LMS")
    except BadSignature:
        return None
    try:
        data["roles"] = tuple(data["roles"])
        return Launch(**data)
    except (TypeError, KeyError):
        return None


def current_token() -> str | None:
    return (
        request.args.get(TOKEN_PARAM)
        or (request.form.get(TOKEN_PARAM) if request.form else None)
        or request.headers.get(TOKEN_HEADER)
        or session.get(TOKEN_PARAM)
    )


def current_launch() -> Launch | None:
    if "launch" not in g:
        token = current_token()
        g.launch = _read_token(token) if token else None
        g.launch_token = token if g.launch else None
    return g.launch


def launch_url_args() -> dict[str, str]:
    current_launch()
    token = g.get("launch_token")
    return {TOKEN_PARAM: token} if token else {}


def require_learner(view: F) -> F:
    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if current_launch() is None:
            abort(401, "no LTI launch: open this activity from your LMS course")
        return view(*args, **kwargs)

    return wrapped  # type: ignore[return-value]


def require_instructor(view: F) -> F:
    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        launch = current_launch()
        if launch is None:
            abort(401, "no LTI launch: open this activity from your LMS course")
        if not launch.is_instructor:
            abort(403, "this page is for instructors of the course")
        return view(*args, **kwargs)

    return wrapped  # type: ignore[return-value]
