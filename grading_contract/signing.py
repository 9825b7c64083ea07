"""HMAC-SHA256 signatures on queue messages, so that writing to the queue is not enough to
inject a job or a score: only a holder of the grading key (the service and the workers) can.

An envelope is ``{"v": 1, "kind": <purpose>, "body": <message>, "sig": <hex>}``; the MAC covers
the purpose and the canonical JSON of the body, so a signed job cannot be replayed as a result
message, and no field of either can be changed. Replaying a whole signed message is harmless:
results are recorded once per (submission, attempt), and a job is graded at least once anyway.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

from grading_contract.errors import SignatureError

VERSION = 1
JOB = "job"
MESSAGE = "message"


def _mac(key: bytes, purpose: str, body: Any) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                           allow_nan=False)
    return hmac.new(key, f"{purpose}\n{canonical}".encode(), hashlib.sha256).hexdigest()


def sign(key: bytes, purpose: str, body: dict[str, Any]) -> dict[str, Any]:
    """The envelope that carries ``body`` on the queue for ``purpose`` (JOB or MESSAGE)."""
    return {"v": VERSION, "kind": purpose, "body": body, "sig": _mac(key, purpose, body)}


def verify(key: bytes, purpose: str, envelope: Any) -> dict[str, Any]:
    """The body of a genuine envelope for ``purpose``; raises SignatureError otherwise."""
    if not isinstance(envelope, dict) or envelope.get("v") != VERSION \
            or envelope.get("kind") != purpose:
        raise SignatureError(f"not a signed {purpose} envelope")
    body, sig = envelope.get("body"), envelope.get("sig")
    if not isinstance(body, dict) or not isinstance(sig, str):
        raise SignatureError(f"the {purpose} envelope has no body or no signature")
    try:
        expected = _mac(key, purpose, body)
    except ValueError as exc:  # a NaN or other value JSON cannot carry canonically
        raise SignatureError(f"the {purpose} body cannot be canonicalised") from exc
    if not hmac.compare_digest(expected, sig):
        raise SignatureError(f"the {purpose} signature does not match its body")
    return body
