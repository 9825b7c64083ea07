"""Who is this request? The launch its token carries, and the CSRF and Origin checks of forms.

Stable API for other parts: ``current_launch()`` (after the blueprint's guard ran),
``issue_token(launch)``, ``launch_url_args()`` (``{"lt": token}`` to keep the launch on a link)
and ``form_fields()`` (the hidden fields every state-changing form carries: ``lt`` and
``csrf_token``). Who may do what is decided in ``lti_service.core.authz``, nowhere else.

Where the token comes from: pages (learner, instructor, submissions, deep-link submit) accept
the ``lt`` URL parameter or form field (an LMS iframe may keep no cookie), the
``X-Pathways-Launch`` header, or the Flask session cookie (top-level windows). Because a cookie
rides along with a forged cross-site form, every state-changing page request must also carry
this launch's CSRF token and, when the browser sends ``Origin``, come from our own origin. The
JSON API is bearer-only: the token in a header, never a cookie, so it needs no CSRF token.
"""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

from flask import abort, current_app, g, request, session

from lti_service.core import request_keys
from lti_service.core.extensions import state
from lti_service.core.tokens import Launch, TokenError, csrf_matches, csrf_token, seal, unseal

__all__ = ["Launch", "current_launch", "form_fields", "issue_token", "launch_url_args"]

TOKEN_PARAM = "lt"
TOKEN_HEADER = "X-Pathways-Launch"
CSRF_FIELD = "csrf_token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
Source = Literal["page", "bearer"]


def _secret() -> str:
    return str(current_app.secret_key)


def issue_token(launch: Launch) -> str:
    return seal(launch, _secret())


def _bearer() -> str | None:
    """The launch token of the header(s). A present ``X-Pathways-Launch`` is the credential even
    when empty (then there is none), and it must agree with a Bearer ``Authorization``: two
    credentials that disagree are no credential (401), whichever one is valid."""
    header = request.headers.get(TOKEN_HEADER)
    scheme, _, value = request.headers.get("Authorization", "").partition(" ")
    bearer = value.strip() if scheme.lower() == "bearer" else None
    if header is not None:
        return header if bearer is None or bearer == header else None
    return bearer or None


def _page_token() -> str | None:
    return (
        request.args.get(TOKEN_PARAM)
        or (request.form.get(TOKEN_PARAM) if request.form else None)
        or _bearer()
        or session.get(TOKEN_PARAM)
    )


def load_launch(source: Source) -> Launch:
    """The request's launch from the sources ``source`` allows; 401 when there is none."""
    token = _bearer() if source == "bearer" else _page_token()
    if not token:
        hint = (f"send the launch token in the {TOKEN_HEADER} header" if source == "bearer"
                else "open this activity from your LMS course")
        abort(401, f"no LTI launch: {hint}")
    try:
        launch = unseal(token, _secret(), max_age_s=state().config.launch_token_max_age_s)
    except TokenError as exc:
        if exc.expired:
            abort(401, "your launch has expired: open the activity again from the LMS")
        abort(401, "the launch token is not valid: open the activity again from the LMS")
    g.launch, g.launch_token = launch, token
    return launch


def current_launch() -> Launch | None:
    return g.get("launch")


def launch_url_args() -> dict[str, str]:
    token = g.get("launch_token")
    return {TOKEN_PARAM: token} if token else {}


def form_fields() -> dict[str, str]:
    """Hidden fields of a state-changing form: the launch token, its CSRF token and a new
    request key (a repeat of the form's request is the same attempt: ``request_keys``)."""
    launch = current_launch()
    if launch is None:
        return {}
    return {**launch_url_args(), CSRF_FIELD: csrf_token(launch, _secret()),
            request_keys.FIELD: request_keys.new_key()}


def _origin(url: str) -> tuple[str, str, int | None] | None:
    """(scheme, host, port) of a URL, parsed (never a string prefix); None when malformed."""
    try:
        parts = urlsplit(url)
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:
        return None
    return parts.scheme, (parts.hostname or "").lower(), port


def check_origin() -> None:
    """403 when the browser says the request comes from another site.

    Our origin is the request's own scheme and host (through ProxyFix) or TOOL_BASE_URL. A
    missing ``Origin`` passes (old browsers, scripts); the CSRF token still has to match.
    ``Origin: null`` (sandboxed or privacy-redirected documents) is foreign.
    """
    origin = request.headers.get("Origin")
    if origin is None:
        return
    ours = {_origin(request.host_url), _origin(state().config.tool_base_url)}
    theirs = _origin(origin)
    if theirs is None or theirs not in ours:
        abort(403, "this form was sent from another site: open the activity from your LMS")


def check_csrf(launch: Launch) -> None:
    given = request.form.get(CSRF_FIELD) if request.form else None
    if not csrf_matches(launch, _secret(), given or request.headers.get("X-CSRF-Token")):
        abort(403, "this form is missing its security token or it is out of date: reload the "
                   "page from your LMS and send it again")
