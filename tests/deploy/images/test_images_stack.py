"""The deployment in containers, end to end (`make images-test`): deploy/images/stack.sh brings
up PostgreSQL and Redis (Debian-package images), the migration, the web service, the consumer
and two CPU graders; devlms on the host launches into the web container; a learner's
submission is graded inside a grader container with the sandbox working and the score reaches
the LMS. Then a grader is killed mid-run (two graders on one queue, as two hosts would be) and
the job is graded exactly once. Last, `stack.sh down` removes every container, volume and
cgroup it made."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests
from conftest import DOCKER
from sqlalchemy import create_engine, func, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from course import load_course, submission_for
from devlms.browser import Browser, forms
from devlms.config import DevLmsConfig
from lti_service.core.models import LmsUser, Placement
from lti_service.outbox.models import ScoreOutbox
from lti_service.submissions import service
from lti_service.submissions.models import Submission

ROOT = Path(__file__).resolve().parents[3]
STACK = "pathways-e2e"
EXERCISE = "arrays-04.exercise.mask-tail"
PORTS = {name: int(os.environ.get(f"PATHWAYS_IMAGES_{name.upper()}_PORT", default))
         for name, default in (("pg", 57432), ("redis", 57379), ("web", 57800), ("lms", 57801))}
LABEL = f"label=pathways.stack={STACK}"


@dataclass
class Stack:
    env_file: Path
    tool_url: str
    lms_url: str
    db: Engine

    def stack_sh(self, *args: str, timeout: float = 900) -> str:
        result = subprocess.run(["bash", str(ROOT / "deploy/images/stack.sh"), *args,
                                 str(self.env_file)], capture_output=True, text=True,
                                timeout=timeout, cwd=ROOT)
        assert result.returncode == 0, f"stack.sh {args}:\n{result.stdout}{result.stderr}"
        return result.stdout

    def gradebook(self) -> dict[str, Any]:
        return requests.get(self.lms_url + "/gradebook.json", timeout=10).json()


def docker(*args: str, timeout: float = 300) -> str:
    result = subprocess.run([DOCKER, *args], capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"docker {args}: {result.stderr[-2000:]}"
    return result.stdout


def _register_lms(cfg: DevLmsConfig) -> None:
    """The LMS as a platform of the tool: `pathways platform add` in the web container, as an
    operator registers one (deploy/README.md)."""
    a = cfg.registration_args
    docker("exec", f"{STACK}-web", "pathways", "platform", "add", "--issuer", a["issuer"],
           "--client-id", a["client_id"], "--login-url", a["auth_login_url"],
           "--token-url", a["auth_token_url"], "--key-set-url", a["key_set_url"],
           "--deployment", cfg.deployment_id, "--name", "devlms")


@pytest.fixture(scope="module")
def stack(image: Callable[[str], str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    for name in ("pathways-postgres", "pathways-redis", "pathways-service",
                 "pathways-grader-cpu"):
        image(name)
    assert docker("ps", "-aq", "--filter", LABEL) == "", f"{STACK} is already up"
    tmp = tmp_path_factory.mktemp("stack")
    tool_url = f"http://127.0.0.1:{PORTS['web']}"
    lms_url = f"http://127.0.0.1:{PORTS['lms']}"
    pg_password = secrets.token_urlsafe(24)
    settings = {
        "PATHWAYS_STACK": STACK, "PATHWAYS_BIND": "127.0.0.1",
        "PATHWAYS_PG_PORT": PORTS["pg"], "PATHWAYS_REDIS_PORT": PORTS["redis"],
        "PATHWAYS_WEB_PORT": PORTS["web"], "PATHWAYS_GRADERS": 2,
        "PATHWAYS_GRADER_MEMORY_MB": 3072,
        "POSTGRES_PASSWORD": pg_password, "REDIS_PASSWORD": secrets.token_urlsafe(24),
        "SECRET_KEY": secrets.token_urlsafe(48), "PATHWAYS_GRADING_KEY": secrets.token_hex(32),
        # Plain HTTP on loopback; the LMS (devlms on this host) is a private address.
        "TOOL_BASE_URL": tool_url, "PREFERRED_URL_SCHEME": "http", "PROXY_FIX_HOPS": 0,
        "OUTBOUND_ALLOW_PRIVATE": 1, "PATHWAYS_WEB_WORKERS": 2,
        # A killed grader's lease runs out in 10 s (heartbeats every 5 s), not 30.
        "PATHWAYS_RUNNING_LEASE_S": 10, "OUTBOX_RETRY_BASE_S": 2,
    }
    env_file = tmp / "stack.env"
    env_file.write_text("".join(f"{k}={v}\n" for k, v in settings.items()))
    env_file.chmod(0o600)
    db = create_engine(f"postgresql+psycopg://pathways:{pg_password}@127.0.0.1:{PORTS['pg']}"
                       "/pathways")
    made = Stack(env_file, tool_url, lms_url, db)
    lms = None
    try:
        made.stack_sh("up")
        lms = subprocess.Popen(
            [sys.executable, "-m", "devlms", "--host", "127.0.0.1", "--port", str(PORTS["lms"]),
             "--tool", tool_url, "--state-dir", str(tmp / "lms")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        for _ in range(120):
            try:
                requests.get(lms_url + "/gradebook.json", timeout=2)
                break
            except requests.ConnectionError:
                time.sleep(0.5)
        _register_lms(DevLmsConfig(base_url=lms_url, tool_base_url=tool_url))
        yield made
    finally:
        if lms is not None:
            lms.terminate()
            lms.wait(timeout=30)
        db.dispose()
        if docker("ps", "-aq", "--filter", LABEL):  # a failed test left it up
            subprocess.run(["bash", str(ROOT / "deploy/images/stack.sh"), "down",
                            str(env_file)], capture_output=True, timeout=600, cwd=ROOT)


def _place_exercise(stack: Stack) -> dict[str, Any]:
    """The instructor deep-links the exercise into the LMS course (once)."""
    for link in stack.gradebook()["links"]:
        if link["custom"].get("content_id") == EXERCISE:
            return link
    teacher = Browser()
    picker = teacher.get(stack.lms_url + "/deep-link?user=teacher")
    assert picker.status_code == 200 and 'name="content_id"' in picker.text, picker.text[:2000]
    done = teacher.submit(picker, data={"content_id": [EXERCISE]})
    assert done.status_code == 200, done.text[:2000]
    return next(link for link in stack.gradebook()["links"]
                if link["custom"].get("content_id") == EXERCISE)


def _submit(stack: Stack, user: str, prefix: str = "") -> str:
    """``user`` launches the exercise from the LMS and submits the reference solution of their
    own variant (``prefix`` first); returns the placement's page URL."""
    link = _place_exercise(stack)
    browser = Browser()
    page = browser.get(f"{stack.lms_url}/launch/{link['id']}?user={user}")
    assert page.status_code == 200, page.text[:2000]
    placement_id = int(re.search(r"/exercise/(\d+)", page.url)[1])
    lesson, exercise = load_course().exercise(EXERCISE)
    with Session(stack.db) as session:
        placement = session.get(Placement, placement_id)
        learner = session.scalar(select(LmsUser).where(LmsUser.sub == user))
        mine = exercise.for_variant(service.learner_variant(exercise, placement, learner.id))
    form = next(f for f in forms(page.text)[0] if f.attrs.get("id", "").endswith("submit-form"))
    code = prefix + submission_for(lesson, mine, mine.solution_code)
    answered = browser.submit(page, form, data={"source": code})
    assert answered.status_code in (200, 202), answered.text[:2000]
    return page.url


def _submission(stack: Stack, user: str) -> Submission:
    with Session(stack.db) as session:
        row = session.scalar(select(Submission).join(LmsUser, Submission.user_id == LmsUser.id)
                             .where(LmsUser.sub == user))
        assert row is not None, f"no submission of {user}"
        session.expunge(row)
        return row


def _wait_for_score(stack: Stack, user: str, timeout: float = 420) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        mine = [r for r in stack.gradebook()["scores"] if r["userId"] == user]
        if mine and mine[0]["gradingProgress"] == "FullyGraded":
            return mine[0]
        time.sleep(1)
    raise AssertionError(f"no score for {user} in the LMS after {timeout} s: "
                         f"{_submission(stack, user).status}\n{_logs()}")


def _logs() -> str:
    names = docker("ps", "-a", "--filter", LABEL, "--format", "{{.Names}}").split()
    return "\n".join(f"== {n}\n" + subprocess.run([DOCKER, "logs", "--tail", "15", n],
                                                  capture_output=True, text=True).stderr[-3000:]
                     for n in names)


def test_submission_is_graded_in_a_grader_container_and_the_score_reaches_the_lms(
        stack: Stack) -> None:
    # Both graders started with their sandbox and a delegated cgroup (no opt-out).
    for i in (1, 2):
        inspect = docker("inspect", f"{STACK}-grader-{i}", "--format",
                         "{{.Config.User}} {{.HostConfig.Privileged}} {{.HostConfig.CapAdd}} "
                         "{{json .HostConfig.MaskedPaths}} {{.HostConfig.SecurityOpt}}")
        # systempaths=unconfined: nothing masked; seccomp: our profile, not unconfined.
        assert inspect.startswith("pathways false [] [] [seccomp={"), inspect[:300]
        assert '"names":["clone3"]' in inspect
    _submit(stack, "alice")
    score = _wait_for_score(stack, "alice")
    graded = _submission(stack, "alice")
    assert (graded.status, graded.outcome) == ("graded", "graded"), (graded.result, _logs())
    assert graded.score == graded.max_score, graded.feedback
    assert (score["scoreGiven"], score["scoreMaximum"]) == (graded.max_score, graded.max_score)
    # Graded by a grader container (its PATHWAYS_GRADER_ID), in the sandbox with its cgroup.
    assert graded.lease_worker.startswith(f"{STACK}-grader-"), graded.lease_worker
    container = graded.lease_worker.split(":")[0]
    log = subprocess.run([DOCKER, "logs", container], capture_output=True, text=True).stderr
    assert "running without a cgroup" not in log and "worker ready" in log, log[-3000:]


def test_a_grader_killed_mid_run_leaves_the_job_graded_exactly_once(stack: Stack) -> None:
    # A run long enough to kill its grader in the middle of it.
    _submit(stack, "bob", prefix="import time\ntime.sleep(12)\n")
    deadline = time.monotonic() + 300
    while True:
        row = _submission(stack, "bob")
        if row.status == "running" and row.lease_worker:
            break
        assert time.monotonic() < deadline, f"never running: {row.status}\n{_logs()}"
        time.sleep(0.5)
    first = row.lease_worker.split(":")[0]
    docker("kill", first)  # SIGKILL: no goodbye, its lease simply stops being renewed

    score = _wait_for_score(stack, "bob")
    graded = _submission(stack, "bob")
    assert (graded.status, graded.outcome) == ("graded", "graded"), (graded.result, _logs())
    assert graded.score == graded.max_score, graded.feedback
    assert graded.grading_try == 2, "the lost try was retried once"
    assert graded.lease_worker.split(":")[0] != first or "restart" in _logs()
    assert score["scoreGiven"] == graded.max_score
    with Session(stack.db) as session:
        sent = session.scalar(select(func.count()).select_from(ScoreOutbox)
                              .where(ScoreOutbox.source == f"exercise:{graded.id}"))
        subs = session.scalar(select(func.count()).select_from(Submission)
                              .join(LmsUser, Submission.user_id == LmsUser.id)
                              .where(LmsUser.sub == "bob"))
    assert (subs, sent) == (1, 1), "one submission, one score sent to the LMS"


def test_down_removes_every_container_volume_and_cgroup(stack: Stack) -> None:
    networks = docker("network", "ls", "-q").split()
    assert docker("volume", "ls", "-q", "--filter", LABEL).split(), "the stack has volumes"
    stack.stack_sh("down")
    assert docker("ps", "-aq", "--filter", LABEL) == ""
    assert docker("volume", "ls", "-q", "--filter", LABEL) == ""
    assert docker("network", "ls", "-q").split() == networks, "no network was made or left"
    left = [str(p) for p in Path("/sys/fs/cgroup").glob(f"*/pathways-graders/{STACK}")]
    left += [str(p) for p in Path("/sys/fs/cgroup").glob(f"pathways-graders/{STACK}")]
    assert left == []
