"""The tool's RSA signing keys: generate, rotate, and publish as a JWKS.

``kid`` is the RFC 7638 thumbprint, the same value pylti1p3 derives from the public key, so the
kid in the JWT header always names the key in the JWKS.
"""

from __future__ import annotations

import functools
import json
import logging
import weakref
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwcrypto.jwk import JWK
from sqlalchemy import select
from sqlalchemy.orm import Session

from lti_service.core.models import utcnow
from lti_service.lti.models import ToolKey

log = logging.getLogger(__name__)


def new_key_pair() -> tuple[str, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    public_pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode()
    return private_pem, public_pem


@functools.lru_cache(maxsize=8)
def signing_key(private_pem: str) -> rsa.RSAPrivateKey:
    """The loaded key to sign with. Loading a PEM RSA key checks the key, ~15-30 ms of CPU
    (several signatures' worth): PyJWT would do it on every token it signs when handed the
    PEM text, so each key is loaded once per process (a rotated key is a new PEM, a new entry).
    """
    key = serialization.load_pem_private_key(private_pem.encode(), password=None)
    if not isinstance(key, rsa.RSAPrivateKey):
        raise ValueError("the tool's signing key is not an RSA key")
    return key


def public_jwk(public_pem: str) -> dict[str, Any]:
    jwk: dict[str, Any] = json.loads(JWK.from_pem(public_pem.encode()).export_public())
    jwk["alg"] = "RS256"
    jwk["use"] = "sig"
    return jwk


MEMO = "pathways_tool_key"
# Databases this process has seen a committed signing key in: keys are rotated, never all
# removed, so once seen, ``ensure_key`` does not look again.
_HAVE_KEY: weakref.WeakSet[Any] = weakref.WeakSet()


def ensure_key(session: Session) -> None:
    """Make the signing key on a fresh install (the caller commits), so the tool's JWKS has it
    before anything is signed; one query per process and database, not one per login."""
    bind = session.get_bind()
    if bind in _HAVE_KEY:
        return
    if session.scalars(select(ToolKey.id).where(ToolKey.current.is_(True))).first() is None:
        current_key(session)
    else:
        _HAVE_KEY.add(bind)


def current_key(session: Session) -> ToolKey:
    """The signing key, created on first use so a fresh install can launch at once.

    Read once per session (memo in ``session.info``; ``rotate`` replaces it): a login and a
    launch each asked for it twice.
    """
    key = session.info.get(MEMO)
    if key is None or key not in session:  # not read yet, or rolled back
        key = session.scalars(select(ToolKey).where(ToolKey.current.is_(True))).first()
        key = key if key is not None else rotate(session)
        session.info[MEMO] = key
    return key


def rotate(session: Session) -> ToolKey:
    """Make a new current key; the previous one stays published, older ones are dropped."""
    now = utcnow()
    keys = list(session.scalars(select(ToolKey).order_by(ToolKey.created_at.desc())))
    for old in keys:
        if old.current:
            old.current = False
            old.retired_at = now
    previous_ids = {k.id for k in keys if k.current is False and k.retired_at == now}
    for old in keys:
        if old.id not in previous_ids:
            session.delete(old)
    private_pem, public_pem = new_key_pair()
    key = ToolKey(
        kid=public_jwk(public_pem)["kid"],
        private_pem=private_pem,
        public_pem=public_pem,
        current=True,
        created_at=now,
    )
    session.add(key)
    session.flush()
    session.info[MEMO] = key
    log.info("tool key rotated: new kid %s", key.kid)
    return key


def jwks(session: Session) -> dict[str, list[dict[str, Any]]]:
    """The published keys: current first, then the previous one."""
    keys = session.scalars(
        select(ToolKey).order_by(ToolKey.current.desc(), ToolKey.created_at.desc())
    )
    return {"keys": [public_jwk(k.public_pem) for k in keys]}
