"""The system under test: a fresh tool database (SQLite file or a PostgreSQL database of the
bench's own) and the tool under gunicorn with the deployment's own settings, on loopback.

Each (database, size) run gets a new database and a new gunicorn, so one run's rows and warm
caches cannot flatter the next.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import requests
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parents[1]
GUNICORN_CONF = ROOT / "deploy" / "gunicorn.conf.py"
log = logging.getLogger(__name__)


class BenchSetupError(Exception):
    """The bench could not build what it measures (no PostgreSQL, gunicorn would not start)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def postgres_base_url() -> str:
    url = os.environ.get("TEST_DATABASE_URL")
    if url:
        return url
    out = subprocess.run(["bash", str(ROOT / "deploy/local/services.sh"), "env"],
                         capture_output=True, text=True, check=False)
    for line in out.stdout.splitlines():
        if line.startswith("export TEST_DATABASE_URL="):
            return line.split("=", 1)[1].strip().strip("'\"")
    raise BenchSetupError("no PostgreSQL: set TEST_DATABASE_URL or start it with "
                          "`eval \"$(bash deploy/local/services.sh start)\"`, or use --db sqlite")


@contextlib.contextmanager
def fresh_database(kind: str, tmp: Path) -> Iterator[str]:
    """A new, empty database URL; a PostgreSQL one is the bench's own and dropped after."""
    if kind == "sqlite":
        yield f"sqlite:///{tmp / 'tool.sqlite3'}"
        return
    base = postgres_base_url()
    admin = make_url(base).set(drivername="postgresql").render_as_string(hide_password=False)
    name = "pw_bench_" + uuid.uuid4().hex[:10]
    try:
        with psycopg.connect(admin, autocommit=True, connect_timeout=5) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
    except psycopg.Error as exc:
        raise BenchSetupError(f"cannot create a PostgreSQL database at {base}: {exc}") from exc
    try:
        yield make_url(base).set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@dataclass
class Gunicorn:
    """A running ``gunicorn -c deploy/gunicorn.conf.py`` serving ``lti_service.wsgi:app``."""

    process: subprocess.Popen[bytes]
    url: str
    workers: int
    log_path: Path
    secret: str

    def cpu_s(self) -> float:
        """CPU seconds (user + system) the master and its workers have used so far: a figure
        the other jobs on a shared machine do not inflate, unlike a latency."""
        return tree_cpu_s(self.process.pid)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


TICK = os.sysconf("SC_CLK_TCK")


def tree_cpu_s(pid: int) -> float:
    """CPU seconds of ``pid`` and its live children (Linux /proc; 0.0 where unreadable).

    From each thread's ``schedstat`` (nanoseconds on a CPU, exact) where the kernel has it;
    else ``stat``'s utime + stime, in clock ticks (10 ms: at 40 answers a tick is a quarter of
    the floor's CPU, so a ratio would move by whole steps)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return 0.0
    return _own_cpu_s(pid) + sum(tree_cpu_s(int(child)) for child in children)


def _own_cpu_s(pid: int) -> float:
    try:
        return sum(int((task / "schedstat").read_text().split()[0])
                   for task in Path(f"/proc/{pid}/task").iterdir()) / 1e9
    except (OSError, ValueError, IndexError):
        pass
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


def start_gunicorn(database_url: str, tmp: Path, workers: int, *, app: str | None = None,
                   ready_path: str = "/lti/jwks") -> Gunicorn:
    """``app``: another WSGI app under the same configuration (the floor, ``bench/_floor.py``);
    ``ready_path``: a GET that answers 200 once it serves (a POST-only app: any HTTP answer)."""
    port = free_port()
    secret = "bench-" + uuid.uuid4().hex
    url = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "PATHWAYS_VAR_DIR": str(tmp / "var"),
        "SECRET_KEY": secret,
        "TOOL_BASE_URL": url,
        "OUTBOUND_ALLOW_PRIVATE": "1",  # the bench's platform is on loopback
        "PATHWAYS_WEB_BIND": f"127.0.0.1:{port}",
        "PATHWAYS_WEB_WORKERS": str(workers),
        "PATHWAYS_WEB_ACCESS_LOG": "/dev/null",
        "PATHWAYS_LOG_LEVEL": "warning",
        "JAX_PLATFORMS": "cpu",
    }
    env.pop("COURSE_ROOT", None)
    log_path = tmp / ("gunicorn.log" if app is None else "gunicorn-floor.log")
    with log_path.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", str(GUNICORN_CONF), *([app] if app else [])],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    server = Gunicorn(process, url, workers, log_path, secret)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BenchSetupError(f"gunicorn exited with {process.returncode}: "
                                  + log_path.read_text()[-2000:])
        try:
            status = requests.get(url + ready_path, timeout=2).status_code
            if status == 200 or (app is not None and status < 500):
                return server
        except requests.RequestException:
            pass
        time.sleep(0.2)
    server.stop()
    raise BenchSetupError(f"gunicorn did not answer {ready_path} within 60 s: "
                          + log_path.read_text()[-2000:])
