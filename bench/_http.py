"""A small asyncio HTTP/1.1 client for the load generator: one connection per request.

Why not requests in threads: hundreds of simulated learners as threads on two cores measure the
GIL as much as the server. One event loop keeps the client's own cost low and even, and
gunicorn's sync workers close every connection anyway, so nothing is lost without keep-alive.
Loopback only: the load generator must never reach another machine.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import urlencode, urlsplit


class HttpError(Exception):
    """A request that got no parsable answer (refused, reset, timed out, malformed)."""


@dataclass
class Response:
    status: int
    headers: dict[str, list[str]]
    body: bytes

    def header(self, name: str) -> str | None:
        values = self.headers.get(name.lower())
        return values[0] if values else None

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Client:
    """One simulated browser: its own cookie jar, requests to loopback URLs only."""

    timeout_s: float = 30.0
    cookies: dict[str, str] = field(default_factory=dict)

    async def get(self, url: str, *, params: dict[str, str] | None = None,
                  headers: dict[str, str] | None = None) -> Response:
        if params:
            url += ("&" if "?" in url else "?") + urlencode(params)
        return await self.request("GET", url, headers=headers)

    async def post_form(self, url: str, form: dict[str, str],
                        headers: dict[str, str] | None = None) -> Response:
        body = urlencode(form).encode()
        hdrs = {"Content-Type": "application/x-www-form-urlencoded", **(headers or {})}
        return await self.request("POST", url, body=body, headers=hdrs)

    async def post_json(self, url: str, data: Any,
                        headers: dict[str, str] | None = None) -> Response:
        hdrs = {"Content-Type": "application/json", **(headers or {})}
        return await self.request("POST", url, body=json.dumps(data).encode(), headers=hdrs)

    async def request(self, method: str, url: str, *, body: bytes = b"",
                      headers: dict[str, str] | None = None) -> Response:
        parts = urlsplit(url)
        host, port = parts.hostname or "", parts.port or 80
        if parts.scheme != "http" or not ipaddress.ip_address(host).is_loopback:
            raise HttpError(f"{url}: the load generator only talks plain HTTP to loopback")
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        lines = [f"{method} {target} HTTP/1.1", f"Host: {parts.netloc}", "Connection: close",
                 f"Content-Length: {len(body)}"]
        if self.cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        raw = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
        try:
            response = await asyncio.wait_for(self._exchange(host, port, raw), self.timeout_s)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
            raise HttpError(f"{method} {parts.path}: {type(exc).__name__}: {exc}") from exc
        for cookie in response.headers.get("set-cookie", []):
            jar: SimpleCookie = SimpleCookie()
            jar.load(cookie)
            for name, morsel in jar.items():
                self.cookies[name] = morsel.value
        return response

    @staticmethod
    async def _exchange(host: str, port: int, raw: bytes) -> Response:
        reader, writer = await asyncio.open_connection(host, port)
        try:
            writer.write(raw)
            await writer.drain()
            data = await reader.read()
        finally:
            writer.close()
        head, sep, body = data.partition(b"\r\n\r\n")
        if not sep:
            raise ValueError(f"no HTTP header in a {len(data)}-byte answer")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        headers: dict[str, list[str]] = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            headers.setdefault(name.strip().lower(), []).append(value.strip())
        if "chunked" in (headers.get("transfer-encoding") or [""])[0]:
            body = _unchunk(body)
        return Response(status, headers, body)


def _unchunk(body: bytes) -> bytes:
    out = bytearray()
    while body:
        size_line, _, rest = body.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out += rest[:size]
        body = rest[size + 2:]
    return bytes(out)
