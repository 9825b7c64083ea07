"""Run a WSGI app on a loopback port in a thread: devlms and the tool in tests and the demo.

``stop()`` then ``start()`` on the same port simulates an LMS that goes down and comes back.
"""

from __future__ import annotations

import socket
import threading
from typing import Any

from werkzeug.serving import BaseWSGIServer, make_server


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class LiveServer:
    def __init__(self, app: Any, host: str = "127.0.0.1", port: int | None = None) -> None:
        self.app = app
        self.host = host
        self.port = port or free_port(host)
        self._server: BaseWSGIServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> LiveServer:
        self._server = make_server(self.host, self.port, self.app, threaded=True)
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
