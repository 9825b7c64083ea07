"""The bench's own LTI 1.3 platform: an RSA key, its JWKS on a loopback port, signed id_tokens.

Why not devlms: devlms knows three people, and the bench needs hundreds of distinct learners.
The bench registers this platform with the tool (``add_platform``, as ``pathways platform add``
does) and answers the tool's JWKS fetch itself, so every launch is checked exactly as one from a
real LMS: signature against the JWKS, state cookie, nonce, deployment, every claim.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"


@dataclass
class BenchPlatform:
    """``issuer`` is this platform's URL (its JWKS lives under it); ``port`` 0 until started."""

    host: str = "127.0.0.1"
    port: int = 0
    client_id: str = "pathways-bench"
    deployment_id: str = "bench-deployment"
    context_id: str = "bench-course"
    kid: str = field(default_factory=lambda: uuid.uuid4().hex)
    key: rsa.RSAPrivateKey = field(
        default_factory=lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048))
    jwks_fetches: int = 0
    _server: asyncio.Server | None = None

    @property
    def issuer(self) -> str:
        return f"http://{self.host}:{self.port}"

    def registration(self) -> dict[str, Any]:
        """The arguments of ``lti_service.lti.service.platforms.add_platform``."""
        return {"issuer": self.issuer, "client_id": self.client_id,
                "auth_login_url": self.issuer + "/authorize",
                "auth_token_url": self.issuer + "/token",
                "key_set_url": self.issuer + "/jwks",
                "deployment_ids": [self.deployment_id], "name": "bench platform"}

    def jwks(self) -> dict[str, Any]:
        jwk = json.loads(RSAAlgorithm.to_jwk(self.key.public_key()))
        return {"keys": [{**jwk, "kid": self.kid, "alg": "RS256", "use": "sig"}]}

    async def start(self) -> BenchPlatform:
        body = json.dumps(self.jwks()).encode()
        answer = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                  + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                await reader.readuntil(b"\r\n\r\n")
                self.jwks_fetches += 1
                writer.write(answer)
                await writer.drain()
            except (asyncio.IncompleteReadError, ConnectionError):
                pass
            finally:
                writer.close()

        self._server = await asyncio.start_server(serve, self.host, self.port or 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    def id_token(self, *, sub: str, nonce: str, link_id: str, content_id: str,
                 instructor: bool = False) -> str:
        """A resource-link launch for ``sub``, signed with this platform's key."""
        now = int(time.time())
        body = {
            "iss": self.issuer, "aud": self.client_id, "azp": self.client_id, "sub": sub,
            "iat": now, "exp": now + 300, "nonce": nonce,
            "name": f"Learner {sub}", "email": f"{sub}@bench.test",
            CLAIM + "deployment_id": self.deployment_id,
            CLAIM + "message_type": "LtiResourceLinkRequest",
            CLAIM + "version": "1.3.0",
            CLAIM + "roles": [INSTRUCTOR if instructor else LEARNER],
            CLAIM + "context": {"id": self.context_id, "title": "Benchmark course"},
            CLAIM + "resource_link": {"id": link_id, "title": "Checkpoint"},
            CLAIM + "custom": {"content_id": content_id, "max_attempts": "3",
                               "counting": "best"},
        }
        return jwt.encode(body, self.key, algorithm="RS256", headers={"kid": self.kid})
