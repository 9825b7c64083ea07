"""Launch tokens and CSRF tokens, with no Flask: pure functions of a secret and the clock.

A launch token carries one accepted LTI launch (user, LMS course, placement, instructor or not)
between requests when the browser keeps no cookie (an LMS iframe). It is *encrypted* and
authenticated (Fernet: AES-128-CBC + HMAC-SHA256, key derived from SECRET_KEY), because it
travels in URLs: a signed-only token (itsdangerous) is readable base64 and would hand database
ids and the launch id to anything that logs the URL. It holds no name, email or LMS user id.
Its lifetime is the caller's ``max_age_s`` (a lesson, ``LAUNCH_TOKEN_MAX_AGE_S``), checked
against the time sealed inside it.

The CSRF token is an HMAC of the launch id: one per launch, the same on every page of it, so
forms rendered from cached HTML still carry the right value, and unknown to another site.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

_TOKEN_INFO = b"pathways launch token v1"
_CSRF_INFO = b"pathways csrf v1"
_CLOCK_SKEW_S = 60


class TokenError(Exception):
    """A launch token that cannot be used; ``expired`` tells the two cases apart."""

    def __init__(self, message: str, *, expired: bool = False) -> None:
        super().__init__(message)
        self.expired = expired


@dataclass(frozen=True)
class Launch:
    """One accepted launch: who, in which LMS course, on which placement (None: deep linking)."""

    user_id: int
    placement_id: int | None
    context_pk: int
    is_instructor: bool
    launch_id: str


# Derived once per (secret, purpose) per process: HKDF and Fernet's set-up were a tenth of a
# guarded request's CPU (three derivations a page: its token, its CSRF check, its forms).
@lru_cache(maxsize=16)
def _derive(secret: str, info: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(
        secret.encode())


@lru_cache(maxsize=8)
def _fernet(secret: str) -> Fernet:
    return Fernet(base64.urlsafe_b64encode(_derive(secret, _TOKEN_INFO)))


def seal(launch: Launch, secret: str, *, now: float | None = None) -> str:
    """The opaque token of ``launch`` (URL-safe, no padding: it passes URL and HTML unchanged)."""
    payload = json.dumps([launch.user_id, launch.placement_id, launch.context_pk,
                          int(launch.is_instructor), launch.launch_id],
                         separators=(",", ":")).encode()
    at = int(time.time() if now is None else now)
    return _fernet(secret).encrypt_at_time(payload, at).decode().rstrip("=")


def unseal(token: str, secret: str, *, max_age_s: int, now: float | None = None) -> Launch:
    """The launch inside ``token``; TokenError when forged, damaged, expired or from the future."""
    raw = (token + "=" * (-len(token) % 4)).encode()
    fernet = _fernet(secret)
    try:
        payload = fernet.decrypt(raw)
        sealed_at = fernet.extract_timestamp(raw)
    except (InvalidToken, ValueError, TypeError) as exc:
        raise TokenError("the launch token is not valid") from exc
    age = (time.time() if now is None else now) - sealed_at
    if age > max_age_s:
        raise TokenError("the launch token has expired", expired=True)
    if age < -_CLOCK_SKEW_S:
        raise TokenError("the launch token is not valid yet")
    try:
        user_id, placement_id, context_pk, instructor, launch_id = json.loads(payload)
        return Launch(int(user_id), None if placement_id is None else int(placement_id),
                      int(context_pk), bool(instructor), str(launch_id))
    except (ValueError, TypeError) as exc:
        raise TokenError("the launch token is not valid") from exc


def csrf_token(launch: Launch, secret: str) -> str:
    """The CSRF token of this launch (hex, URL-safe)."""
    message = f"{launch.launch_id}|{launch.user_id}|{launch.context_pk}".encode()
    return hmac.new(_derive(secret, _CSRF_INFO), message, hashlib.sha256).hexdigest()[:40]


def csrf_matches(launch: Launch, secret: str, given: str | None) -> bool:
    return bool(given) and hmac.compare_digest(csrf_token(launch, secret), str(given))
