"""A pylti1p3 ServiceConnector whose OAuth2 tokens live in the ``access_tokens`` table, and
whose every request (token endpoint, AGS, NRPS) goes through the guarded fetch.

Every HTTP request pylti1p3 makes goes through ``GuardedAdapter``: ``outbound.request`` with the
operator's policy (no private targets unless allowed, deadline, size cap, no redirects) and only
to the platform's registered origins (``platforms.service_origins``). A refusal is a
``requests.ConnectionError`` with one message: pylti1p3 and the outbox handle it as "the LMS is
not reachable", and nothing of what was (or was not) there reaches a page.

pylti1p3 caches tokens per connector instance with no expiry; this one shares them between
processes and fetches a new one only when the stored one is within ``REFRESH_MARGIN`` of expiry.
An LMS may void a token before its expiry (a restart, a rotated key, a revoked grant): when a
service call with a stored token is answered 401 or 403, the token is dropped and the call is
made once more with a fresh one. A refusal of the fresh one is the caller's error to handle.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

import requests
from pylti1p3.exception import LtiServiceException
from pylti1p3.registration import Registration
from pylti1p3.service_connector import ServiceConnector, TServiceConnectorResponse
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from lti_service.core.models import utcnow
from lti_service.lti.models import AccessToken
from lti_service.lti.service import outbound

log = logging.getLogger(__name__)
REFRESH_MARGIN = timedelta(seconds=120)
REFUSED_TOKEN = (401, 403)
MAX_ANSWER_BYTES = 16 * 1024


@dataclass(frozen=True)
class ServiceAnswer:
    """An LMS's answer to a service call, as ``CachedServiceConnector.post`` returns it."""

    status: int
    text: str
    """The body's first ``MAX_ANSWER_BYTES``, decoded leniently (for messages, never parsed)."""
    headers: dict[str, str]


class GuardedAdapter(BaseAdapter):
    """requests' transport replaced by ``outbound.request`` (module docstring)."""

    def __init__(self, rules: outbound.OutboundPolicy,
                 origins: frozenset[outbound.Origin]) -> None:
        super().__init__()
        self._rules = rules
        self._origins = origins

    def send(self, request: requests.PreparedRequest, stream: bool = False,  # type: ignore[override]
             timeout: object = None, verify: object = True, cert: object = None,
             proxies: object = None) -> requests.Response:
        body = request.body.encode() if isinstance(request.body, str) else request.body
        try:
            answer = outbound.request(str(request.method), str(request.url), self._rules,
                                      body=body, headers=dict(request.headers),
                                      origins=self._origins)
        except outbound.OutboundRefused as exc:
            raise requests.ConnectionError(exc.message, request=request) from None
        response = requests.Response()
        response.status_code = answer.status
        response.headers = CaseInsensitiveDict(answer.headers)
        response._content = answer.body
        response.encoding = "utf-8"
        response.url = str(request.url)
        response.request = request
        return response

    def close(self) -> None:
        """Nothing pooled: every guarded request opens and closes its own connection."""


def guarded_session(rules: outbound.OutboundPolicy,
                    origins: frozenset[outbound.Origin]) -> requests.Session:
    """A requests session that can only make guarded requests to ``origins``."""
    session = requests.Session()
    session.trust_env = False  # no proxies or .netrc from the environment
    session.adapters.clear()
    adapter = GuardedAdapter(rules, origins)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


class CachedServiceConnector(ServiceConnector):
    def __init__(self, registration: Registration, db: Session, platform_id: int,
                 http: requests.Session) -> None:
        super().__init__(registration, http)
        self._db = db
        self._platform_id = platform_id
        self._last_expires_in: int | None = None
        self._token_was_stored = False
        self._requests_session.hooks["response"].append(self._remember_expiry)

    def _stored(self, scopes: Sequence[str]) -> tuple[str, AccessToken | None]:
        scope_key = hashlib.sha256(" ".join(sorted(scopes)).encode()).hexdigest()
        return scope_key, self._db.scalar(
            select(AccessToken).where(
                AccessToken.platform_id == self._platform_id, AccessToken.scope_key == scope_key
            )
        )

    def get_access_token(self, scopes: Sequence[str]) -> str:
        scope_key, row = self._stored(scopes)
        now = utcnow()
        if row is not None and row.expires_at - REFRESH_MARGIN > now:
            self._token_was_stored = True
            return row.token
        self._token_was_stored = False
        self._access_tokens = {}
        token = super().get_access_token(scopes)
        expires_in = int(self._last_expires_in or 3600)
        expires_at = now + timedelta(seconds=expires_in)
        if row is None:
            try:
                with self._db.begin_nested():
                    self._db.add(AccessToken(platform_id=self._platform_id, scope_key=scope_key,
                                             token=token, expires_at=expires_at))
            except IntegrityError:  # another process stored one first: keep ours, update it
                row = self._db.scalar(select(AccessToken).where(
                    AccessToken.platform_id == self._platform_id,
                    AccessToken.scope_key == scope_key))
        if row is not None:
            row.token = token
            row.expires_at = expires_at
        self._db.flush()
        log.info("new access token for platform %s (expires in %ss)", self._platform_id,
                 expires_in)
        return token

    def forget_access_token(self, scopes: Sequence[str]) -> None:
        """Mark the stored token for these scopes as expired, so the next call fetches one."""
        _, row = self._stored(scopes)
        if row is not None:
            row.expires_at = utcnow() - REFRESH_MARGIN
            self._db.flush()

    def make_service_request(  # type: ignore[override]
        self, scopes: Sequence[str], url: str, *args: object, **kwargs: object
    ) -> TServiceConnectorResponse:
        for again in (False, True):
            try:
                return super().make_service_request(scopes, url, *args, **kwargs)  # type: ignore[arg-type]
            except LtiServiceException as exc:
                if not self._refused_token(exc):
                    raise
                stored = self._token_was_stored
                self.forget_access_token(scopes)  # refused, stored or fresh: never reuse it
                if again or not stored:
                    raise
                log.warning("platform %s refused a stored access token (HTTP %s): fetching a "
                            "new one", self._platform_id, exc.response.status_code)
        raise AssertionError("unreachable")

    def post(self, scopes: Sequence[str], url: str, data: str, content_type: str
             ) -> ServiceAnswer:
        """POST with a token for exactly ``scopes``; the LMS's answer unparsed, its body cut.

        pylti1p3's ``make_service_request`` parses every answer as JSON, so an LMS that answers
        a score with ``200 text/plain OK`` looked like a failure. Here the caller judges the
        status. A stored token answered 401/403 is dropped and the POST made once more with a
        fresh one; network errors and a refused token request raise (RequestException,
        LtiServiceException). No redirect is followed (the token would go with it).
        """
        for again in (False, True):
            token = self.get_access_token(scopes)
            stored = self._token_was_stored
            response = self._requests_session.post(
                url, data=data, allow_redirects=False,
                headers={"Authorization": "Bearer " + token, "Content-Type": content_type})
            answer = ServiceAnswer(
                response.status_code,
                response.content[:MAX_ANSWER_BYTES].decode("utf-8", "replace"),
                dict(response.headers))
            if answer.status not in REFUSED_TOKEN:
                return answer
            self.forget_access_token(scopes)  # refused, stored or fresh: never reuse it
            if again or not stored:
                return answer
            log.warning("platform %s refused a stored access token (HTTP %s): fetching a new "
                        "one", self._platform_id, answer.status)
        raise AssertionError("unreachable")

    def _refused_token(self, exc: LtiServiceException) -> bool:
        """A service URL (not the token URL) answered 401/403."""
        return (exc.response.status_code in REFUSED_TOKEN
                and exc.response.request.url != self._registration.get_auth_token_url())

    def _remember_expiry(self, response: requests.Response, *args: object, **kw: object) -> None:
        if response.request.url != self._registration.get_auth_token_url() or not response.ok:
            return
        try:
            self._last_expires_in = int(response.json().get("expires_in", 3600))
        except (ValueError, AttributeError):
            self._last_expires_in = 3600
