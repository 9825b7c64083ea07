"""devlms on a loopback port, with a tool key pair we control to sign what a tool would send."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from flask import Flask, jsonify
from jwcrypto.jwk import JWK

from devlms import DevLmsConfig, Store, create_app
from devlms.config import new_private_key_pem, public_pem
from devlms.server import LiveServer, reserve_port


@dataclass
class Lms:
    server: LiveServer
    tool_server: LiveServer
    config: DevLmsConfig
    store: Store
    tool_key: str
    tool_kid: str


def _tool_jwks_app(private_pem: str) -> tuple[Flask, str]:
    """A minimal tool side: only its JWKS, which devlms fetches to check what the tool signs."""
    jwk = json.loads(JWK.from_pem(public_pem(private_pem).encode()).export_public())
    jwk.update(alg="RS256", use="sig")
    app = Flask("tool-jwks")
    app.add_url_rule("/lti/jwks", "jwks", lambda: jsonify({"keys": [jwk]}))
    return app, jwk["kid"]


@pytest.fixture
def lms() -> Iterator[Lms]:
    key = new_private_key_pem()
    tool_app, kid = _tool_jwks_app(key)
    tool = LiveServer(tool_app).start()
    port = reserve_port()
    cfg = DevLmsConfig(base_url=f"http://127.0.0.1:{port}", tool_base_url=tool.url)
    store = Store()
    server = LiveServer(create_app(cfg, store), port=port).start()
    yield Lms(server, tool, cfg, store, key, kid)
    server.stop()
    tool.stop()
