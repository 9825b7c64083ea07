"""devlms settings: who the LMS is, which tool it talks to, and the people in its one course."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"


def new_private_key_pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


@functools.lru_cache(maxsize=8)
def private_key(private_pem: str) -> rsa.RSAPrivateKey:
    """The loaded key: loading PEM text checks the RSA key (~15-30 ms of CPU, more than a
    signature), so each key is loaded once per process, not for every token devlms signs or
    checks (a restored or new key is a new PEM, a new entry)."""
    key = serialization.load_pem_private_key(private_pem.encode(), password=None)
    if not isinstance(key, rsa.RSAPrivateKey):
        raise ValueError("devlms signs with an RSA key")
    return key


@functools.lru_cache(maxsize=8)
def public_pem(private_pem: str) -> str:
    return private_key(private_pem).public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


@dataclass(frozen=True)
class Person:
    sub: str
    name: str
    email: str
    roles: tuple[str, ...]


def default_people() -> dict[str, Person]:
    return {
        "teacher": Person("teacher", "Terry Teacher", "teacher@devlms.test", (INSTRUCTOR,)),
        "alice": Person("alice", "Alice Learner", "alice@devlms.test", (LEARNER,)),
        "bob": Person("bob", "Bob Learner", "bob@devlms.test", (LEARNER,)),
    }


@dataclass
class DevLmsConfig:
    """``base_url`` is where devlms itself is reached; ``tool_base_url`` the tool's root."""

    base_url: str
    tool_base_url: str
    client_id: str = "pathways-tool"
    deployment_id: str = "deployment-1"
    context_id: str = "course-1"
    context_title: str = "JAX Pathways (devlms)"
    private_key_pem: str = field(default_factory=new_private_key_pem)
    people: dict[str, Person] = field(default_factory=default_people)

    @property
    def issuer(self) -> str:
        return self.base_url.rstrip("/")

    @property
    def tool_login_url(self) -> str:
        return self.tool_base_url.rstrip("/") + "/lti/login"

    @property
    def tool_launch_url(self) -> str:
        return self.tool_base_url.rstrip("/") + "/lti/launch"

    @property
    def tool_jwks_url(self) -> str:
        return self.tool_base_url.rstrip("/") + "/lti/jwks"

    def url(self, path: str) -> str:
        return self.base_url.rstrip("/") + path

    @property
    def registration_args(self) -> dict[str, str]:
        """What the tool's operator passes to ``pathways platform add``."""
        return {
            "issuer": self.issuer,
            "client_id": self.client_id,
            "auth_login_url": self.url("/authorize"),
            "auth_token_url": self.url("/token"),
            "key_set_url": self.url("/jwks"),
        }
