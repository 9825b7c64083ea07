"""Targets for outbound-request tests: a real HTTP server that records what reached it, and raw
TCP listeners (one that never answers, one that speaks another protocol)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask import Flask, Response, jsonify, redirect, request

from devlms.server import LiveServer

BIG = 300 * 1024  # over the default 256 KiB cap


class ProbeServer:
    """An HTTP server on loopback; ``hits`` lists ``(method, path)`` of every request."""

    def __init__(self) -> None:
        self.hits: list[tuple[str, str]] = []
        self.config: dict[str, Any] = {}
        self.registration_answer: dict[str, Any] = {}
        app = Flask(__name__)
        app.before_request(lambda: self.hits.append((request.method, request.path)))
        app.add_url_rule("/json", "json", view_func=lambda: jsonify({"keys": [], "ok": True}))
        app.add_url_rule("/config", "config", view_func=lambda: jsonify(self.config))
        app.add_url_rule("/register", "register", methods=["POST"],
                         view_func=lambda: jsonify(self.registration_answer))
        app.add_url_rule("/big", "big", view_func=lambda: jsonify({"pad": "x" * BIG}))
        app.add_url_rule("/big-stream", "big-stream", view_func=lambda: Response(
            (b"x" * 65536 for _ in range(BIG // 65536 + 1)), mimetype="application/json"))
        app.add_url_rule("/text", "text", view_func=lambda: Response("OK", mimetype="text/plain"))
        app.add_url_rule("/list", "list", view_func=lambda: jsonify([1, 2]))
        app.add_url_rule("/slow", "slow", view_func=lambda: (time.sleep(3), jsonify({}))[1])
        app.add_url_rule("/same-host", "same-host", view_func=lambda: redirect("/json"))
        app.add_url_rule("/other-host", "other-host", view_func=lambda: redirect(
            request.args.get("to", "http://localhost:1/json")))
        self.server = LiveServer(app).start()

    @property
    def url(self) -> str:
        return self.server.url

    def stop(self) -> None:
        self.server.stop()


@contextmanager
def raw_listener(greeting: bytes | None) -> Iterator[int]:
    """A TCP port that accepts; sends ``greeting`` (e.g. an SSH banner) or stays silent."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.settimeout(0.2)
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            held.append(conn)
            if greeting is not None:
                conn.sendall(greeting)
                conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield int(sock.getsockname()[1])
    finally:
        stop.set()
        thread.join(timeout=5)
        for conn in held:
            conn.close()
        sock.close()
