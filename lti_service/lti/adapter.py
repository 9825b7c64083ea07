"""The one place pylti1p3 meets Flask: OIDC login, launch validation, deep-link responses.

pylti1p3 2.0.0 leaves some checks out; ``check_claims`` adds them before a launch is accepted:
``aud`` must contain our client id (pylti1p3 turns its own aud check off), ``azp`` must be our
client id when present and is required when ``aud`` has several values, ``exp`` and ``iat`` are
required (PyJWT refuses expired and future-dated tokens), only resource-link and deep-linking
messages are accepted, ``roles`` must be a list. Nonce replay is refused by the ``used_nonces``
unique key (``lti.service.launches``); pylti1p3 only checks that the nonce was issued. With several
audiences the client is the one ``azp`` names (pylti1p3 takes the first audience).

Bounded input (``claims``): login parameters and the id_token are length-checked before they are
stored or decoded, and every claim the tool reads is type- and length-checked (marshmallow)
before pylti1p3's message validators, which assume the spec's types. Whatever still fails to
parse is a 400, and messages quote pylti1p3 or the request only as a short excerpt.

Third-party cookies: pylti1p3 binds state to a cookie. Behind TLS the cookies the tool sets
(pylti1p3's state cookie, through ``PartitionedCookieService``, and Flask's session cookie,
through ``lti_service.core.cookies``) are ``SameSite=None; Secure; Partitioned``: a partitioned
(CHIPS) cookie is kept inside the LMS frame even where third-party cookies are blocked (Chromium's
default), keyed to the LMS's site. Where a browser still refuses it, the launch finds the login
parameters saved under the state and offers "open in a new window", which restarts the login at
top level where the cookie works.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlencode

import requests
from flask import request
from pylti1p3.contrib.flask import (
    FlaskCookieService,
    FlaskMessageLaunch,
    FlaskOIDCLogin,
    FlaskRequest,
)
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.exception import LtiException, OIDCException
from pylti1p3.lineitem import LineItem
from sqlalchemy.orm import Session

from lti_service.core.content import ContentItem
from lti_service.core.errors import LaunchRejected, excerpt
from lti_service.core.extensions import state
from lti_service.lti.service import claims, keysets, outbound
from lti_service.lti.service.connector import guarded_session
from lti_service.lti.service.storage import DbLaunchDataStorage
from lti_service.lti.service.toolconf import DbToolConf

log = logging.getLogger(__name__)
CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
ACCEPTED_MESSAGES = ("LtiResourceLinkRequest", "LtiDeepLinkingRequest")
LOGIN_PARAMS = ("iss", "login_hint", "target_link_uri", "lti_message_hint",
                "lti_deployment_id", "client_id")
STATE_COOKIE_PREFIX = "lti1p3-"


def check_claims(body: dict[str, Any], client_id: str) -> None:
    """The checks pylti1p3 2.0.0 skips (see the module docstring)."""
    aud = body.get("aud")
    auds = aud if isinstance(aud, list) else [aud]
    if client_id not in auds:
        raise LtiException(f"aud {excerpt(aud)} does not contain this tool's client id")
    azp = body.get("azp")
    if len(auds) > 1 and not azp:
        raise LtiException("aud has several values but azp is missing")
    if azp is not None and azp != client_id:
        raise LtiException(f"azp {excerpt(azp)} is not this tool's client id")
    for claim in ("exp", "iat"):
        if not isinstance(body.get(claim), int | float):
            raise LtiException(f"the id_token has no numeric {claim} claim")
    message_type = body.get(CLAIM + "message_type")
    if message_type not in ACCEPTED_MESSAGES:
        raise LtiException(f"message type {excerpt(message_type)} is not supported by this "
                           "tool")
    if not isinstance(body.get(CLAIM + "roles"), list):
        raise LtiException("the roles claim must be a list")


class PartitionedCookieService(FlaskCookieService):
    """pylti1p3's cookie writer, with ``Partitioned`` whenever the cookie is cross-site."""

    def update_response(self, response: Any) -> None:
        secure = bool(self._request.is_secure())
        for key, data in self._cookie_data_to_set.items():
            # pylti1p3's own attributes (FlaskCookieService.update_response), plus CHIPS.
            response.set_cookie(key=key, value=data["value"], max_age=data["exp"], path="/",
                                secure=secure, httponly=True,
                                samesite="None" if secure else None, partitioned=secure)


class ToolMessageLaunch(FlaskMessageLaunch):
    """pylti1p3's launch with the tool's key-set cache, stricter claims and fewer writes.

    Writes per launch: the launch body is kept only for deep-linking requests (the picker's
    response needs it, ``restore``); a resource-link launch's token carries all later requests
    need. The "state already validated" mark pylti1p3 writes is never read here (the state must
    match the state cookie; ``new_window_url`` covers a blocked cookie), so it is not written.
    """

    key_sets: keysets.KeySets | None = None

    def fetch_public_key(self, key_set_url: str) -> Any:
        """The platform's key set: cached (``lti.service.keysets``), else through the guarded
        outbound fetch (``lti.service.outbound``)."""
        if self.key_sets is None:
            return guarded_fetch(key_set_url)
        return self.key_sets.get(key_set_url)

    def get_public_key(self) -> tuple[str, str]:
        """pylti1p3's lookup; a kid the cached set lacks refreshes the set once (rotation)."""
        try:
            return super().get_public_key()
        except LtiException:
            kid = self._jwt.get("header", {}).get("kid")
            assert self._registration is not None
            url = self._registration.get_key_set_url()
            if self.key_sets is None or not kid or not url:
                raise
            cached = self._registration.get_key_set()
            if cached is not None and keysets.has_kid(cached, kid):
                raise  # the kid is known: the failure is not a stale cache
            fresh = self.key_sets.refresh(url)
            if fresh is None:
                raise
            self._registration.set_key_set(fresh)
            return super().get_public_key()

    def validate_state(self) -> ToolMessageLaunch:
        """The state must equal the state cookie (no storage read: see the class docstring)."""
        given = self._get_request_param("state")
        if not given:
            raise LtiException("Missing state param")
        if self._cookie_service.get_cookie(given) != given:
            raise LtiException("State not found")
        return self

    def save_launch_data(self) -> ToolMessageLaunch:
        if self._get_jwt_body().get(CLAIM + "message_type") == "LtiDeepLinkingRequest":
            self._session_service.save_launch_data(self._launch_id, self._jwt["body"])
        return self

    def get_client_id(self) -> str:
        """OIDC core 3.1.3.7: with several audiences, ``azp`` names the client the token is for
        (pylti1p3 takes the first audience, so a valid token listing us second was refused)."""
        body = self._get_jwt_body()
        aud, azp = body.get("aud"), body.get("azp")
        if isinstance(aud, list) and isinstance(azp, str) and azp in aud:
            return azp
        return super().get_client_id()

    def validate_jwt_format(self) -> ToolMessageLaunch:
        super().validate_jwt_format()
        if not isinstance(self._jwt.get("body"), dict):
            raise LtiException("malformed claims: the id_token body is not a JSON object")
        return self

    def validate_message(self) -> ToolMessageLaunch:
        problems = claims.claim_problems(self._jwt.get("body"))
        if problems:
            raise LtiException("malformed claims: " + "; ".join(problems[:8]))
        super().validate_message()
        assert self._registration is not None
        check_claims(dict(self._jwt["body"]), str(self._registration.get_client_id()))
        return self


def no_requests() -> requests.Session:
    """The session pylti1p3's launch object holds: it may reach no origin at all. Key sets come
    through ``guarded_fetch``, LMS services through ``lms.connector_for``; pylti1p3's own
    ``get_ags``/``get_nrps`` connectors would use this one and be refused."""
    return guarded_session(outbound.OutboundPolicy(), frozenset())


def guarded_fetch(key_set_url: str) -> Any:
    """The key set through ``lti.service.outbound``: pylti1p3's own fetch follows any redirect, has
    no timeout or size cap, and echoes the answer's body and the network error in its message."""
    try:
        return outbound.fetch_json(key_set_url, outbound.policy(state().config))
    except outbound.OutboundRefused as exc:
        raise LtiException(f"the platform's key set: {exc.message}") from None


def _said(exc: Exception, limit: int = 300) -> str:
    """pylti1p3's message, cut: some quote what the request sent."""
    text = str(exc)
    return text if len(text) <= limit else text[:limit] + "…"


def _parts(db: Session) -> tuple[FlaskRequest, DbToolConf, DbLaunchDataStorage]:
    return FlaskRequest(), DbToolConf(db), DbLaunchDataStorage(db)


def login(db: Session, launch_url: str) -> Any:
    """Answer an OIDC login initiation (GET or POST) with the redirect to the platform."""
    req, conf, storage = _parts(db)
    params = {k: req.get_param(k) for k in LOGIN_PARAMS if req.get_param(k)}
    claims.check_login_params(params)
    target = params.get("target_link_uri")
    if target and not target.startswith(launch_url.rsplit("/lti/", 1)[0] + "/"):
        raise LaunchRejected(f"target_link_uri {excerpt(target)} is not a URL of this tool")
    oidc = FlaskOIDCLogin(req, conf, cookie_service=PartitionedCookieService(req),
                          launch_data_storage=storage)
    try:
        return oidc.pass_params_to_launch({"login": params}).redirect(launch_url)
    except OIDCException as exc:
        raise LaunchRejected(f"login initiation refused: {_said(exc)}") from exc


def new_window_url(db: Session, login_url: str) -> str | None:
    """When the state cookie is missing: the top-level login URL to retry with, if known."""
    state = request.form.get("state")
    if (not state or len(state) > claims.MAX_STATE_CHARS
            or request.cookies.get(STATE_COOKIE_PREFIX + state)):
        return None
    stored = DbLaunchDataStorage(db).get_value("lti1p3-" + state)
    params = stored.get("login") if isinstance(stored, dict) else None
    if not isinstance(params, dict) or not params:
        return None
    return login_url + "?" + urlencode(params)


def validate_launch(db: Session) -> tuple[ToolMessageLaunch, dict[str, Any]]:
    claims.check_launch_form(request.form.get("id_token"), request.form.get("state"))
    req, conf, storage = _parts(db)
    message = ToolMessageLaunch(req, conf, launch_data_storage=storage,
                                requests_session=no_requests())
    message.key_sets = keysets.KeySets(db, guarded_fetch)
    try:
        body = dict(message.get_launch_data())
    except LtiException as exc:
        raise LaunchRejected(f"launch refused: {_said(exc)}") from exc
    except (AttributeError, KeyError, TypeError, ValueError, RecursionError) as exc:
        # A claim of a type no check above foresaw: refused, never a 500.
        raise LaunchRejected(f"launch refused: malformed id_token ({type(exc).__name__})") from exc
    return message, body


def restore(db: Session, launch_id: str) -> ToolMessageLaunch:
    req, conf, storage = _parts(db)
    try:
        return ToolMessageLaunch.from_cache(launch_id, req, conf, launch_data_storage=storage,
                                            requests_session=no_requests())
    except LtiException as exc:
        raise LaunchRejected(f"this launch is no longer known ({_said(exc)}): launch again"
                             ) from exc


def deep_link_response(
    db: Session,
    launch_id: str,
    launch_url: str,
    chosen: list[ContentItem],
    *,
    max_attempts: int,
    counting: str,
    graded_lessons: bool = False,
    code_attempts: int | None = None,
) -> tuple[str, str]:
    """(the platform's return URL, the signed response JWT) that return the chosen items.

    The page posts the JWT there (``deep_link_return.html``; pylti1p3's own form has an inline
    script, which the tool's CSP forbids, and does not escape the URL).

    A lesson is an ungraded link (no line item, so no empty gradebook column) unless
    ``graded_lessons``: then its checkpoint answers score it, as a completion score.
    """
    try:
        message = restore(db, launch_id)
    except LaunchRejected:
        # Only deep-linking launches keep their launch data (ToolMessageLaunch.save_launch_data).
        raise LaunchRejected("this launch is not a deep-linking request (or no longer known): "
                             "add content from the LMS's 'add an external tool' dialog, which "
                             "opens the picker") from None
    if not message.is_deep_link_launch():
        raise LaunchRejected("this launch is not a deep-linking request: add content from the "
                             "LMS's 'add an external tool' dialog, which opens the picker")
    resources = []
    for item in chosen:
        resource = (
            DeepLinkResource()
            .set_url(launch_url)
            .set_title(item.title)
            .set_custom_params({"content_id": item.content_id,
                                "max_attempts": str(max_attempts), "counting": counting,
                               "code_attempts": "" if code_attempts is None
                               else str(code_attempts)})
        )
        if item.kind != "lesson" or graded_lessons:
            resource.set_lineitem(
                LineItem()
                .set_score_maximum(item.score_maximum)
                .set_label(item.title)
                .set_resource_id(item.content_id)
                .set_tag(item.kind)
            )
        resources.append(resource)
    deep_link = message.get_deep_link()
    return_url = str(message.get_launch_data()[claims.DL_CLAIM]["deep_link_return_url"])
    if outbound.origin(return_url) is None:
        raise LaunchRejected("the LMS's deep-linking return URL is not an http(s) URL")
    return return_url, deep_link.get_response_jwt(resources)
