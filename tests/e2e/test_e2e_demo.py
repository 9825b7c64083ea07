"""`pathways demo` as a person runs it: one command, URLs printed, the LTI flow works over
HTTP, Ctrl-C stops every child, and the data is there on the next start."""

from __future__ import annotations

import html
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import requests
from course_answers import right_choice
from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session

from devlms.browser import Browser, forms
from devlms.server import free_port
from lti_service.checkpoints.models import CheckpointAttempt
from lti_service.core.models import Placement

READY = "JAX Pathways demo is running"


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for our purpose only once reaped; /proc tells them apart.
    status = Path(f"/proc/{pid}/status")
    return status.exists() and "\nState:\tZ" not in status.read_text()


def counts(state_dir: Path) -> tuple[int, int]:
    engine = create_engine(f"sqlite:///{state_dir / 'pathways.sqlite3'}")
    with Session(engine) as session:
        result = (session.scalar(select(func.count()).select_from(Placement)) or 0,
                  session.scalar(select(func.count()).select_from(CheckpointAttempt)) or 0)
    engine.dispose()
    return result


def wait_for_score(lms_url: str, user: str, resource_id: str, timeout: float = 60.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = requests.get(lms_url + "/gradebook.json", timeout=10).json()["scores"]
        mine = [r for r in rows if r["userId"] == user and r["resourceId"] == resource_id]
        if mine:
            return mine[0]
        time.sleep(0.5)
    raise AssertionError(f"no score for {user} on {resource_id} in the LMS after {timeout}s")


def test_demo_runs_the_flow_stops_cleanly_and_keeps_its_data(start_demo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    state_dir = tmp_path / "demo"
    demo = start_demo(state_dir)
    demo.wait_for(READY)
    assert f"{demo.lms_url}/" in demo.output and "open this first" in demo.output
    assert f"{demo.tool_url}/" in demo.output
    assert "registered the local LMS with the tool" in demo.output
    pids = demo.child_pids()
    assert len(pids) == 4, demo.output

    # The instructor places a lesson's checkpoint by deep linking, through the LMS.
    teacher = Browser()
    picker = teacher.get(demo.lms_url + "/deep-link?user=teacher")
    assert picker.status_code == 200 and 'name="content_id"' in picker.text, picker.text[:2000]
    done = teacher.submit(picker, data={"content_id": ["arrays-04", "arrays-04.checkpoint"]})
    assert done.status_code == 200, done.text[:2000]
    links = requests.get(demo.lms_url + "/gradebook.json", timeout=10).json()["links"]
    checkpoint = next(link for link in links
                      if link["custom"].get("content_id") == "arrays-04.checkpoint")

    # A learner launches it from the LMS and answers; the score reaches the LMS gradebook.
    alice = Browser()
    page = alice.get(f"{demo.lms_url}/launch/{checkpoint['id']}?user=alice")
    assert page.status_code == 200 and "Immutable updates and indexing" in page.text
    form = next(f for f in forms(page.text)[0]
                if f.attrs.get("class", "").startswith("checkpoint"))
    key = right_choice("arrays-04", html.unescape(page.text))
    answered = alice.submit(page, form, data={"choice": key})
    assert answered.status_code == 200, answered.text[:2000]
    score = wait_for_score(demo.lms_url, "alice", "arrays-04.checkpoint")
    assert (score["scoreGiven"], score["scoreMaximum"]) == (1.0, 1.0)

    # Ctrl-C: every child is stopped and reaped, the ports are free again.
    assert demo.interrupt() == 0, demo.output[-3000:]
    assert [pid for pid in pids if alive(pid)] == []
    assert "demo stopped; data kept in" in demo.output
    placed, attempts = counts(state_dir)
    assert placed >= 1 and attempts == 1

    # A second start finds the same database and registration.
    again = start_demo(state_dir)
    again.wait_for(READY)
    assert "already registered" in again.output
    assert "registered the local LMS with the tool:" not in again.output
    assert counts(state_dir) == (placed, attempts)
    assert requests.get(again.tool_url + "/lti/jwks", timeout=10).status_code == 200
    # The LMS kept its placements and gradebook: the same link launches the same activity.
    book = requests.get(again.lms_url + "/gradebook.json", timeout=10).json()
    assert checkpoint in book["links"], book["links"]
    assert [(r["userId"], r["scoreGiven"]) for r in book["scores"]] == [("alice", 1.0)]
    page = Browser().get(f"{again.lms_url}/launch/{checkpoint['id']}?user=alice")
    assert page.status_code == 200 and "Checkpoint attempts: 1 of" in page.text, page.text[:2000]
    assert again.interrupt() == 0
    assert [pid for pid in again.child_pids() if alive(pid)] == []


def test_demo_refuses_a_port_in_use_and_starts_nothing(tmp_path: Path) -> None:
    state_dir = tmp_path / "demo"
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "pathways", "demo", "--dir", str(state_dir),
             "--tool-port", str(port), "--lms-port", str(free_port())],
            capture_output=True, text=True, timeout=120, env={**os.environ, "JAX_PLATFORMS": "cpu"},
        )
    assert result.returncode == 1
    assert f"port {port} (tool service) is already in use" in result.stderr
    assert "--tool-port" in result.stderr
    assert "started" not in result.stdout + result.stderr
