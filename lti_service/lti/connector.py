"""A pylti1p3 ServiceConnector whose OAuth2 tokens live in the ``access_tokens`` table.

pylti1p3 caches tokens per connector instance with no expiry; this one shares them between
processes and fetches a new one only when the stored one is within ``REFRESH_MARGIN`` of expiry.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from datetime import timedelta

import requests
from pylti1p3.registration import Registration
from pylti1p3.service_connector import ServiceConnector
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..models import AccessToken, utcnow

log = logging.getLogger(__name__)
REFRESH_MARGIN = timedelta(seconds=120)
HTTP_TIMEOUT_S = 15


class _TimeoutSession(requests.Session):
    def request(self, *args, **kwargs):  # type: ignore[no-untyped-def, override]
        kwargs.setdefault("timeout", HTTP_TIMEOUT_S)
        return super().request(*args, **kwargs)


def http_session() -> requests.Session:
    session = _TimeoutSession()
    session.headers["User-Agent"] = "jax-pathways-lti"
    return session


class CachedServiceConnector(ServiceConnector):
    def __init__(self, registration: Registration, db: Session, platform_id: int) -> None:
        super().__init__(registration, http_session())
        self._db = db
        self._platform_id = platform_id
        self._last_expires_in: int | None = None
        self._requests_session.hooks["response"].append(self._remember_expiry)

    def get_access_token(self, scopes: Sequence[str]) -> str:
        scope_key = hashlib.sha256(" ".join(sorted(scopes)).encode()).hexdigest()
        row = self._db.scalar(
            select(AccessToken).where(
                AccessToken.platform_id == self._platform_id, AccessToken.scope_key == scope_key
            )
        )
        now = utcnow()
        if row is not None and row.expires_at - REFRESH_MARGIN > now:
            return row.token
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

    def _remember_expiry(self, response: requests.Response, *args: object, **kw: object) -> None:
        if response.request.url != self._registration.get_auth_token_url() or not response.ok:
            return
        try:
            self._last_expires_in = int(response.json().get("expires_in", 3600))
        except (ValueError, AttributeError):
            self._last_expires_in = 3600
