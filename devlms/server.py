"""Run a WSGI app on a loopback port in a thread: devlms and the tool in tests and the demo.

``stop()`` then ``start()`` on the same port simulates an LMS that goes down and comes back.
"""

from __future__ import annotations

import socket
import threading
from typing import Any

from werkzeug.serving import BaseWSGIServer, make_server


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on now, for another process to bind (or for nothing to): until
    it is bound, another program's outgoing connection may take it. A server of this process
    takes a ``reserve_port`` instead."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


_RESERVED: dict[tuple[str, int], socket.socket] = {}
_RESERVED_LOCK = threading.Lock()


def reserve_port(host: str = "127.0.0.1") -> int:
    """A port held bound and listening until a ``LiveServer`` of this process starts on it,
    so its URL can be handed out first. A port looked up and closed (``free_port``) was taken
    by an outgoing connection's ephemeral port before the server bound it, on a loaded test
    host (EADDRINUSE); the kernel gives no bound port to an outgoing connection."""
    sock = _listening(host, 0)
    port = int(sock.getsockname()[1])
    with _RESERVED_LOCK:
        _RESERVED[(host, port)] = sock
    return port


def _listening(host: str, port: int) -> socket.socket:
    """A bound, listening socket. Werkzeug's own bind ends the process on EADDRINUSE
    (``sys.exit``), which no caller or test framework expects of a server start: here it is
    an ``OSError``."""
    sock = socket.socket()
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


class LiveServer:
    def __init__(self, app: Any, host: str = "127.0.0.1", port: int | None = None) -> None:
        self.app = app
        self.host = host
        self.port = port or reserve_port(host)
        self._server: BaseWSGIServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> LiveServer:
        with _RESERVED_LOCK:
            held = _RESERVED.pop((self.host, self.port), None)
        if held is None:  # a port given by the caller, or a restart on the port it had
            held = _listening(self.host, self.port)
        with held:  # the server listens on a duplicate of it
            self._server = make_server(self.host, self.port, self.app, threaded=True,
                                       fd=held.fileno())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True,
                                        name=f"live-{self.port}")
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
