"""Outbound HTTP made on behalf of an untrusted caller: the one guarded way to fetch a URL.

Why: Dynamic Registration and launches make the tool fetch URLs a stranger may have chosen (an
OpenID configuration, a registration endpoint, a platform's key set). Unguarded, that is a port
scanner and a reader of internal services (SSRF). So every such request goes through
``fetch_json``:

- http(s) only; the host is resolved once and the connection goes to a checked address (no
  DNS rebinding between the check and the connection), each in turn while one cannot be
  reached, as browsers do (``localhost`` is ``::1`` then ``127.0.0.1`` on Debian); private,
  loopback, link-local, reserved and multicast addresses are refused unless the operator
  allows them (``OUTBOUND_ALLOW_PRIVATE``);
- short timeouts and an overall deadline, a response size cap, no content decoding (no
  decompression bombs);
- redirects followed only within the same origin (GET only), and a request may be pinned to an
  origin (the registration POST goes only to the issuer's origin);
- ONE error message whatever happened (refused address, closed port, open port, 404, timeout, too
  big, not JSON), so the answer tells a caller nothing about the network; the real cause goes to
  the log, truncated.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import socket
import time
from dataclasses import dataclass
from typing import Any, NamedTuple
from urllib.parse import urljoin, urlsplit

import certifi
import urllib3

from lti_service.core.config import Config
from lti_service.core.errors import ServiceError

log = logging.getLogger(__name__)

FAILED = ("the platform could not be reached or did not answer as expected: check its URLs "
          "and start again from the LMS")
USER_AGENT = "jax-pathways-lti"
REDIRECTS = (301, 302, 303, 307, 308)
LOG_EXCERPT = 200


class OutboundRefused(ServiceError):
    """Any failed outbound request; the message is always :data:`FAILED`."""

    status = 400

    def __init__(self) -> None:
        super().__init__(FAILED)


@dataclass(frozen=True)
class OutboundPolicy:
    """What the operator allows: ``allow_private`` only for tests, the demo, one-machine LMSs."""

    allow_private: bool = False
    timeout_s: float = 5.0
    max_bytes: int = 256 * 1024
    max_redirects: int = 3
    ca_bundle: str | None = None  # None: certifi's bundle


def policy(cfg: Config) -> OutboundPolicy:
    return OutboundPolicy(allow_private=cfg.outbound_allow_private,
                          timeout_s=cfg.outbound_timeout_s, max_bytes=cfg.outbound_max_bytes,
                          ca_bundle=cfg.outbound_ca_bundle)


class Origin(NamedTuple):
    scheme: str
    host: str
    port: int


def origin(url: str) -> Origin | None:
    """Scheme, host and port of an http(s) URL (default port filled in); None if it is not one.

    Parsed, never compared as text: ``https://lms.example.com.evil.example`` is another host than
    ``https://lms.example.com``, and ``https://lms.example.com@evil.example`` is refused.
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname or parts.username is not None:
        return None
    return Origin(scheme, parts.hostname.lower().rstrip("."),
                  port if port is not None else (443 if scheme == "https" else 80))


def same_origin(a: str, b: str) -> bool:
    first = origin(a)
    return first is not None and first == origin(b)


class _Failure(Exception):
    """The real cause of a failed request: logged, never answered."""


def _excerpt(text: str) -> str:
    return text if len(text) <= LOG_EXCERPT else text[:LOG_EXCERPT] + "..."


def _allowed(address: str, allow_private: bool) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return allow_private or (ip.is_global and not ip.is_multicast)


def _resolve(where: Origin, allow_private: bool) -> list[str]:
    """The addresses to connect to, in the resolver's order; every one must be allowed."""
    try:
        infos = socket.getaddrinfo(where.host, where.port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise _Failure(f"cannot resolve {where.host}: {exc}") from exc
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not addresses:
        raise _Failure(f"{where.host} has no address")
    refused = [a for a in addresses if not _allowed(a, allow_private)]
    if refused:
        raise _Failure(f"{where.host} resolves to a non-public address {refused[0]} "
                       "(OUTBOUND_ALLOW_PRIVATE is off)")
    return addresses


def _pool(where: Origin, address: str, timeout_s: float,
          ca_bundle: str | None) -> urllib3.HTTPConnectionPool:
    """A connection to the checked address; TLS still verifies the certificate for the host."""
    timeout = urllib3.Timeout(connect=timeout_s, read=timeout_s)
    if where.scheme == "https":
        return urllib3.HTTPSConnectionPool(
            address, where.port, timeout=timeout, retries=False, maxsize=1,
            server_hostname=where.host, assert_hostname=where.host,
            cert_reqs="CERT_REQUIRED", ca_certs=ca_bundle or certifi.where())
    return urllib3.HTTPConnectionPool(address, where.port, timeout=timeout, retries=False,
                                      maxsize=1)


def _host_header(where: Origin) -> str:
    host = f"[{where.host}]" if ":" in where.host else where.host
    default = 443 if where.scheme == "https" else 80
    return host if where.port == default else f"{host}:{where.port}"


def _read(response: urllib3.BaseHTTPResponse, max_bytes: int, deadline: float) -> bytes:
    declared = response.headers.get("Content-Length")
    if declared and declared.isdigit() and int(declared) > max_bytes:
        raise _Failure(f"Content-Length {declared} is over the {max_bytes}-byte cap")
    body = bytearray()
    while True:
        chunk = response.read1(65536, decode_content=False)
        if not chunk:
            return bytes(body)
        body += chunk
        if len(body) > max_bytes:
            raise _Failure(f"body is over the {max_bytes}-byte cap")
        if time.monotonic() > deadline:
            raise _Failure("the answer took longer than the deadline")


class Answer(NamedTuple):
    """One HTTP answer: status, headers (lower-case names), body (at most the policy's cap)."""

    status: int
    headers: dict[str, str]
    body: bytes


def _once(method: str, url: str, rules: OutboundPolicy, body: bytes | None,
          headers: dict[str, str], deadline: float) -> Answer:
    """One request/answer to a checked address; a redirect is returned, never followed."""
    where = origin(url)
    if where is None:
        raise _Failure("not an http(s) URL with a host")
    addresses = _resolve(where, rules.allow_private)
    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    for index, address in enumerate(addresses):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise _Failure("deadline passed before connecting")
        pool = _pool(where, address, min(rules.timeout_s, remaining), rules.ca_bundle)
        try:
            try:
                response = pool.urlopen(
                    method, target, body=body, redirect=False, retries=False,
                    preload_content=False, decode_content=False, assert_same_host=False,
                    headers={"Accept": "application/json", **headers,
                             "Host": _host_header(where), "User-Agent": USER_AGENT,
                             "Accept-Encoding": "identity"})
            except (urllib3.exceptions.NewConnectionError,
                    urllib3.exceptions.ConnectTimeoutError):
                if index + 1 < len(addresses):  # not connected: nothing was sent; next one
                    continue
                raise
            try:
                answered = {k.lower(): v for k, v in response.headers.items()}
                if response.status in REDIRECTS:
                    return Answer(response.status, answered, b"")
                return Answer(response.status, answered,
                              _read(response, rules.max_bytes, deadline))
            finally:
                response.close()  # one request per connection: never back to a pool
        finally:
            pool.close()
    raise _Failure(f"{where.host} has no address")  # unreachable: _resolve returns one or more


def _fetch(method: str, url: str, rules: OutboundPolicy, payload: Any,
           headers: dict[str, str], same_origin_as: str | None) -> dict[str, Any]:
    deadline = time.monotonic() + rules.timeout_s
    body = None
    if payload is not None:
        body = json.dumps(payload).encode()
        headers = {**headers, "Content-Type": "application/json"}
    for _ in range(rules.max_redirects + 1):
        if same_origin_as is not None and not same_origin(url, same_origin_as):
            raise _Failure(f"not the same origin as {same_origin_as}")
        status, answered, data = _once(method, url, rules, body, headers, deadline)
        location = answered.get("location") if status in REDIRECTS else None
        if location is None:
            break
        target = urljoin(url, location)
        if method != "GET" or not same_origin(target, url):
            raise _Failure(f"HTTP {status} redirect to another origin or of a {method}: "
                           f"{target}")
        url = target
    else:
        raise _Failure(f"more than {rules.max_redirects} redirects")
    if not 200 <= status < 300:
        raise _Failure(f"HTTP {status}: {data[:LOG_EXCERPT]!r}")
    try:
        parsed = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise _Failure(f"the answer is not JSON ({type(exc).__name__})") from exc
    if not isinstance(parsed, dict):
        raise _Failure("the answer is not a JSON object")
    return parsed


def fetch_json(url: str, rules: OutboundPolicy, *, method: str = "GET", payload: Any = None,
               headers: dict[str, str] | None = None,
               same_origin_as: str | None = None) -> dict[str, Any]:
    """GET (or POST ``payload`` as JSON to) ``url`` and return the JSON object it answers.

    ``same_origin_as``: the request (and any redirect) must stay on that URL's origin.
    Raises :class:`OutboundRefused`, with the same message, whatever went wrong.
    """
    try:
        return _fetch(method, url, rules, payload, dict(headers or {}), same_origin_as)
    except (_Failure, urllib3.exceptions.HTTPError, OSError, ValueError) as exc:
        log.warning("outbound %s %s refused: %s: %s", method, _excerpt(url.split("?", 1)[0]),
                    type(exc).__name__, _excerpt(str(exc)))
        raise OutboundRefused() from None


def request(method: str, url: str, rules: OutboundPolicy, *, body: bytes | None = None,
            headers: dict[str, str] | None = None,
            origins: frozenset[Origin] | None = None) -> Answer:
    """One guarded request that returns whatever the server answered (any status, no redirect
    followed: a bearer token must not travel on), for callers that judge the answer themselves
    (the LMS service calls, ``lti.service.lms``). ``origins``: the URL must be on one of them.

    Raises :class:`OutboundRefused` (one message) when no answer came: refused address or
    origin, network error, deadline, a body over the cap.
    """
    try:
        where = origin(url)
        if origins is not None and where not in origins:
            raise _Failure("not one of the platform's registered origins")
        return _once(method, url, rules, body, dict(headers or {}),
                     time.monotonic() + rules.timeout_s)
    except (_Failure, urllib3.exceptions.HTTPError, OSError, ValueError) as exc:
        log.warning("outbound %s %s refused: %s: %s", method, _excerpt(url.split("?", 1)[0]),
                    type(exc).__name__, _excerpt(str(exc)))
        raise OutboundRefused() from None
