"""Signed launches through Flask's test client: no tool server, no devlms.

The tool still checks every signature for real: the platform's key set is served over HTTP by a
stdlib server in a thread (a few lines, one JSON document), which is all a launch needs from an
LMS. ``launch`` does the OIDC login then posts the id_token, exactly as a platform's browser does.
"""

from __future__ import annotations

import functools
import json
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

import jwt
from flask.testing import FlaskClient
from lti1p3platform.registration import Registration

from devlms.config import INSTRUCTOR, LEARNER, new_private_key_pem, private_key, public_pem

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
LAUNCH_URL = "http://localhost/lti/launch"
__all__ = ["INSTRUCTOR", "LEARNER", "Platform", "launch", "platform_keys"]


@dataclass(frozen=True)
class Platform:
    """A registered platform whose private key the test holds."""

    issuer: str
    client_id: str
    deployment_id: str
    private_key_pem: str
    key_set_url: str

    @property
    def kid(self) -> str:
        return str(Registration.get_jwk(public_pem(self.private_key_pem))["kid"])

    def registration_args(self) -> dict[str, Any]:
        return {"issuer": self.issuer, "client_id": self.client_id,
                "auth_login_url": self.issuer + "/authorize",
                "auth_token_url": self.issuer + "/token", "key_set_url": self.key_set_url,
                "deployment_ids": [self.deployment_id]}

    def sign(self, body: dict[str, Any]) -> str:
        return jwt.encode(body, private_key(self.private_key_pem), algorithm="RS256",
                          headers={"kid": self.kid})


@functools.cache
def _platform_pem() -> str:
    return new_private_key_pem()  # one RSA key per test session: each test has its own database


@contextmanager
def platform_keys() -> Iterator[Platform]:
    """The platform key and its key set on a loopback URL, for the length of the block."""
    pem = _platform_pem()
    body = json.dumps({"keys": [Registration.get_jwk(public_pem(pem))]}).encode()

    class KeySet(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), KeySet)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02},
                              daemon=True)
    thread.start()
    try:
        yield Platform(issuer="https://lms.test", client_id="unit-client",
                       deployment_id="unit-deployment", private_key_pem=pem,
                       key_set_url=f"http://127.0.0.1:{server.server_address[1]}/jwks")
    finally:
        server.shutdown()
        server.server_close()


def claims(platform: Platform, nonce: str, *, sub: str, role: str, context_id: str,
           content_id: str, link_id: str | None = None) -> dict[str, Any]:
    now = int(time.time())
    return {
        "iss": platform.issuer, "aud": platform.client_id, "azp": platform.client_id,
        "sub": sub, "iat": now, "exp": now + 300, "nonce": nonce, "name": sub.title(),
        CLAIM + "message_type": "LtiResourceLinkRequest", CLAIM + "version": "1.3.0",
        CLAIM + "deployment_id": platform.deployment_id, CLAIM + "target_link_uri": LAUNCH_URL,
        CLAIM + "resource_link": {"id": link_id or "unit-" + uuid.uuid4().hex[:8]},
        CLAIM + "roles": [role], CLAIM + "context": {"id": context_id, "title": context_id},
        CLAIM + "custom": {"content_id": content_id},
    }


def login(client: FlaskClient, platform: Platform, sub: str) -> tuple[str, str]:
    """The OIDC login: (nonce, state); the state cookie stays in ``client``."""
    r = client.get("/lti/login", query_string={
        "iss": platform.issuer, "login_hint": sub, "target_link_uri": LAUNCH_URL,
        "lti_message_hint": "unit", "client_id": platform.client_id})
    assert r.status_code == 302, r.get_data(as_text=True)[:500]
    query = parse_qs(urlparse(r.headers["Location"]).query)
    return query["nonce"][0], query["state"][0]


def launch(client: FlaskClient, platform: Platform, *, sub: str, role: str, context_id: str,
           content_id: str, link_id: str | None = None) -> tuple[str, int]:
    """A resource-link launch; returns (launch token, placement id) from the tool's redirect."""
    nonce, state = login(client, platform, sub)
    token = platform.sign(claims(platform, nonce, sub=sub, role=role, context_id=context_id,
                                 content_id=content_id, link_id=link_id))
    r = client.post("/lti/launch", data={"id_token": token, "state": state})
    assert r.status_code == 302, r.get_data(as_text=True)[:500]
    location = urlparse(r.headers["Location"])
    return parse_qs(location.query)["lt"][0], int(location.path.rstrip("/").split("/")[-1])
