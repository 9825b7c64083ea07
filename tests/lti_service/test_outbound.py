"""The guarded outbound fetch (lti/service/outbound.py) against real loopback servers."""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from flask import Flask, jsonify
from probe_server import ProbeServer, raw_listener
from werkzeug.serving import make_server

from devlms.server import free_port
from lti_service.lti.service.outbound import (
    FAILED,
    OutboundPolicy,
    OutboundRefused,
    fetch_json,
    origin,
    same_origin,
)

LOOPBACK_OK = OutboundPolicy(allow_private=True, timeout_s=1.0)


@pytest.fixture
def probe() -> Iterator[ProbeServer]:
    server = ProbeServer()
    yield server
    server.stop()


def refused(url: str, rules: OutboundPolicy = LOOPBACK_OK, **kw: object) -> str:
    with pytest.raises(OutboundRefused) as info:
        fetch_json(url, rules, **kw)  # type: ignore[arg-type]
    return info.value.message


def test_origin_is_parsed_not_a_string_prefix() -> None:
    issuer = "https://lms.example.com"
    assert not same_origin("https://lms.example.com.evil.example/.well-known/x", issuer)
    assert not same_origin("https://lms.example.com@evil.example/x", issuer)
    assert not same_origin("https://lms.example.com:8443/x", issuer)
    assert not same_origin("http://lms.example.com/x", issuer)
    assert same_origin("https://LMS.example.com:443/.well-known/openid-configuration", issuer)
    assert origin("file:///etc/passwd") is None and origin("gopher://lms.example.com") is None


def test_json_object_is_returned_and_same_host_redirect_followed(probe: ProbeServer) -> None:
    assert fetch_json(probe.url + "/json", LOOPBACK_OK)["ok"] is True
    assert fetch_json(probe.url + "/same-host", LOOPBACK_OK)["ok"] is True
    assert probe.hits == [("GET", "/json"), ("GET", "/same-host"), ("GET", "/json")]


def test_loopback_refused_unless_allowed_and_nothing_is_sent(probe: ProbeServer) -> None:
    strict = OutboundPolicy(allow_private=False, timeout_s=1.0)
    for host in ("127.0.0.1", "localhost"):
        assert refused(f"http://{host}:{probe.server.port}/json", strict) == FAILED
    assert refused("http://169.254.169.254/latest/meta-data/", strict) == FAILED
    assert refused("http://[::ffff:127.0.0.1]:80/", strict) == FAILED
    assert probe.hits == []


def test_every_failure_gives_the_same_message_and_logs_the_cause(
        probe: ProbeServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, "lti_service.lti.service.outbound")
    with raw_listener(None) as silent, raw_listener(b"SSH-2.0-OpenSSH_9.6\r\n") as ssh:
        urls = {
            "closed port": f"http://127.0.0.1:{free_port()}/x",
            "open port, no answer": f"http://127.0.0.1:{silent}/x",
            "open port, not http": f"http://127.0.0.1:{ssh}/x",
            "404": probe.url + "/nothing-here",
            "too big": probe.url + "/big",
            "too big, no length": probe.url + "/big-stream",
            "not json": probe.url + "/text",
            "not an object": probe.url + "/list",
            "timeout": probe.url + "/slow",
            "other host redirect": probe.url + f"/other-host?to=http://localhost:"
                                               f"{probe.server.port}/json",
            "file scheme": "file:///etc/passwd",
            "ftp scheme": f"ftp://127.0.0.1:{probe.server.port}/",
            "no host": "http:///x",
        }
        messages = {what: refused(url) for what, url in urls.items()}
    assert set(messages.values()) == {FAILED}, messages
    # The redirect's target was never requested: it is another host (localhost vs 127.0.0.1).
    assert ("GET", "/json") not in probe.hits
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "HTTP 404" in logged and "byte cap" in logged and "another origin" in logged
    assert all(len(r.getMessage()) < 800 for r in caplog.records)


def test_post_is_pinned_to_an_origin_and_never_follows_redirects(probe: ProbeServer) -> None:
    probe.registration_answer = {"client_id": "c"}
    answer = fetch_json(probe.url + "/register", LOOPBACK_OK, method="POST",
                        payload={"a": 1}, same_origin_as=probe.url)
    assert answer == {"client_id": "c"}
    other = f"http://localhost:{probe.server.port}"
    assert refused(probe.url + "/register", method="POST", payload={},
                   same_origin_as=other) == FAILED
    assert probe.hits == [("POST", "/register")]


def _self_signed(tmp_path: Path, host: str) -> tuple[Path, Path]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)])
    now = datetime.now(UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(minutes=5)).not_valid_after(now + timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(host)]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def test_https_verifies_the_host_certificate_on_the_pinned_address(tmp_path: Path) -> None:
    cert, key = _self_signed(tmp_path, "localhost")
    app = Flask(__name__)
    app.add_url_rule("/jwks", "jwks", view_func=lambda: jsonify({"keys": ["k"]}))
    server = make_server("127.0.0.1", 0, app, threaded=True,  # bound here: no port race
                         ssl_context=(str(cert), str(key)))
    port = server.port
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        trusted = OutboundPolicy(allow_private=True, timeout_s=2.0, ca_bundle=str(cert))
        assert fetch_json(f"https://localhost:{port}/jwks", trusted) == {"keys": ["k"]}
        # Same server, but its certificate is not for 127.0.0.1, or not trusted at all.
        assert refused(f"https://127.0.0.1:{port}/jwks", trusted) == FAILED
        assert refused(f"https://localhost:{port}/jwks",
                       OutboundPolicy(allow_private=True, timeout_s=2.0)) == FAILED
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_a_name_whose_first_address_is_unreachable_is_fetched_from_the_next(
        probe: ProbeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """As ``localhost`` on Debian (``::1`` first, the server on 127.0.0.1): the connection
    falls through to the next checked address, and a POST is still sent exactly once. The
    resolver's answer is the one thing made up here (a name with two loopback addresses,
    127.0.0.2 refusing connections); the connections are real."""
    port = int(probe.url.rsplit(":", 1)[1].split("/", 1)[0])
    real = socket.getaddrinfo

    def two_addresses(host, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if host != "dual.test":
            return real(host, *args, **kwargs)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port))
                for ip in ("127.0.0.2", "127.0.0.1")]

    monkeypatch.setattr(socket, "getaddrinfo", two_addresses)
    url = f"http://dual.test:{port}"
    assert fetch_json(url + "/json", LOOPBACK_OK)["ok"] is True
    assert probe.hits == [("GET", "/json")]
    # Every address must still be allowed: a private one refuses the whole name.
    assert refused(url + "/json", OutboundPolicy(allow_private=False, timeout_s=1.0)) == FAILED
    assert probe.hits == [("GET", "/json")]
    # No address answers: the one uniform refusal.
    probe.stop()
    assert refused(url + "/json") == FAILED
