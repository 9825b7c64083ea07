"""The faults the chaos suite drives: PostgreSQL and Redis of its own that it stops and kills,
and an LMS front that is slow, down, or strict about repeated timestamps as Open edX is."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


class Servers:
    """PostgreSQL and Redis of the chaos run, which it stops, kills and starts."""

    def __init__(self, state: Path) -> None:
        # Each pytest-xdist worker ("gwN") its own servers: one file's faults (a kill, a stop)
        # must not land on another file's run.
        worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
        self.state = state.with_name(f"{state.name}-{worker}") if worker else state
        self.env = {**os.environ,
                    "PATHWAYS_PG_PORT": os.environ.get("CHAOS_PG_PORT", str(55472 + 10 * worker)),
                    "PATHWAYS_REDIS_PORT": os.environ.get("CHAOS_REDIS_PORT",
                                                          str(56419 + 10 * worker))}
        self.pg_url = (f"postgresql+psycopg://pathways@127.0.0.1:{self.env['PATHWAYS_PG_PORT']}"
                       "/pathways")
        self.redis_url = f"redis://127.0.0.1:{self.env['PATHWAYS_REDIS_PORT']}/0"

    def _sh(self, cmd: str) -> None:
        subprocess.run(["bash", str(REPO / "deploy/local/services.sh"), cmd, str(self.state)],
                       env=self.env, check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        self._sh("start")

    def stop(self) -> None:
        self._sh("stop")

    def fresh_database(self) -> str:
        import psycopg

        name = "chaos_" + uuid.uuid4().hex[:8]
        port = self.env["PATHWAYS_PG_PORT"]
        with psycopg.connect(f"postgresql://postgres@127.0.0.1:{port}/postgres",
                             autocommit=True) as conn:
            conn.execute(f'create database "{name}" owner pathways')
        return self.pg_url.rsplit("/", 1)[0] + "/" + name

    def pg_down(self) -> None:
        pgbin = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))[-1]
        as_pg = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
        subprocess.run([*as_pg, str(pgbin), "-D", str(self.state / "pg"), "-m", "fast", "stop"],
                       check=True, capture_output=True, timeout=60)

    def redis_kill(self) -> None:
        pid = int((self.state / "redis.pid").read_text())
        os.kill(pid, signal.SIGKILL)
        for _ in range(50):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)


class FaultyLms:
    """WSGI middleware in front of devlms's score endpoint: ``delay_s`` answers late (the score
    is recorded first, as a slow LMS does), ``strict`` refuses a (line item, user, timestamp)
    it has seen with Open edX's 400, ``down`` answers 503 to everything."""

    def __init__(self, app: Callable[..., Any]) -> None:
        self.app = app
        self.delay_s = 0.0
        self.strict = True
        self.down = False
        self.seen: set[tuple[str, str, str]] = set()
        self.lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if self.down:
            start_response("503 Service Unavailable", [("Content-Type", "text/plain")])
            return [b"down for maintenance"]
        path = environ.get("PATH_INFO", "")
        if environ.get("REQUEST_METHOD") == "POST" and path.endswith("/scores"):
            size = int(environ.get("CONTENT_LENGTH") or 0)
            body = environ["wsgi.input"].read(size)
            environ["wsgi.input"] = io.BytesIO(body)
            try:
                score = json.loads(body)
                key = (path, str(score.get("userId")), str(score.get("timestamp")))
            except ValueError:
                key = None
            if self.strict and key is not None:
                with self.lock:
                    repeated = key in self.seen
                    self.seen.add(key)
                if repeated:
                    start_response("400 Bad Request", [("Content-Type", "application/json")])
                    return [b'{"error": "score already exists for the provided timestamp"}']
            answer = self.app(environ, start_response)
            if self.delay_s:
                time.sleep(self.delay_s)
            return answer
        return self.app(environ, start_response)
