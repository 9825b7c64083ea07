"""gunicorn HUP (the unit's ExecReload=) under load answers every request: the app and the
course are loaded in the master (preload_app) and new workers fork from it. The cold start is
measured too (printed, not asserted: speed belongs in benchmarks)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests

from devlms.server import free_port

pytestmark = [pytest.mark.chaos_fast, pytest.mark.waits]
REPO = Path(__file__).resolve().parents[2]


def _wait_up(url: str, proc: subprocess.Popen[bytes], timeout_s: float = 120) -> float:
    start = time.monotonic()
    while time.monotonic() - start < timeout_s:
        assert proc.poll() is None, "gunicorn exited"
        try:
            if requests.get(url, timeout=2).status_code == 200:
                return time.monotonic() - start
        except requests.RequestException:
            pass
        time.sleep(0.1)
    raise AssertionError("gunicorn did not answer")


def test_hup_under_load_fails_no_request(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
           "PATHWAYS_VAR_DIR": str(tmp_path / "var"), "TOOL_BASE_URL": "http://localhost",
           "PATHWAYS_WEB_BIND": f"127.0.0.1:{port}", "PATHWAYS_WEB_WORKERS": "2",
           "PATHWAYS_LOG_LEVEL": "WARNING"}
    env.pop("REDIS_URL", None)
    subprocess.run([sys.executable, "-m", "pathways", "db", "upgrade"], env=env, check=True,
                   capture_output=True, timeout=120)
    gunicorn = Path(sys.executable).with_name("gunicorn")
    with (tmp_path / "gunicorn.log").open("wb") as log:
        proc = subprocess.Popen([str(gunicorn), "-c", str(REPO / "deploy/gunicorn.conf.py")],
                                env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/lti/jwks"
    try:
        cold = _wait_up(url, proc)
        print(f"\ncold start (master loads app and course, 2 workers): {cold:.1f}s")
        failures: list[str] = []
        answered = [0]
        stop = threading.Event()

        def load() -> None:
            with requests.Session() as http:
                while not stop.is_set():
                    try:
                        r = http.get(url, timeout=10)
                        if r.status_code != 200:
                            failures.append(str(r.status_code))
                        answered[0] += 1
                    except requests.RequestException as exc:
                        failures.append(type(exc).__name__)

        threads = [threading.Thread(target=load) for _ in range(4)]
        for t in threads:
            t.start()
        time.sleep(1.0)
        for _ in range(2):
            proc.send_signal(signal.SIGHUP)
            time.sleep(3.0)
        stop.set()
        for t in threads:
            t.join()
        print(f"HUP x2 under load: {answered[0]} requests, {len(failures)} failed")
        assert answered[0] > 50 and not failures, failures[:10]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
