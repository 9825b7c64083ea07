"""The chaos harness: the real parts on loopback, one fault at a time, counted from the databases
and from the LMS's own log of received score posts.

Parts: PostgreSQL and Redis of its own (``deploy/local/services.sh``, its own folder and ports:
CHAOS_PG_PORT, CHAOS_REDIS_PORT), the tool (create_app, a live server), devlms (its
``score_posts`` is the LMS's log) behind ``FaultyLms`` (slow answers, Open edX's refusal of a
timestamp it has, down), and `pathways consumer` as a subprocess, restarted when it dies as
the supervisors do. The grader's side is a scripted grader speaking the real queue protocol
(claim, started, result) so a fault run costs seconds, not JAX runs; ``--real-workers`` in
``bench/chaos.py`` is left for a bigger machine.

Load per fault: ``learners`` checkpoint answers, each sent twice with one request key (a client
retry), and ``jobs`` submissions graded through the queues. Counted after the fault:
sent, recorded, lost, duplicated attempts, scores posted twice with one timestamp, false
``failed``, stuck, and recovery time (fault over -> everything recorded and delivered).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests
from sqlalchemy import func, select

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "lti_service"))

from faults import FaultyLms, Servers  # noqa: E402
from lti_stack import Stack, build_stack  # noqa: E402

from devlms.browser import Browser  # noqa: E402
from grading_contract.config import load_queue_config  # noqa: E402
from grading_contract.queues import Queues  # noqa: E402
from grading_contract.result import GradingResult  # noqa: E402
from lti_service.checkpoints.models import CheckpointAttempt  # noqa: E402
from lti_service.core.models import LmsUser, Placement  # noqa: E402
from lti_service.outbox.models import ScoreOutbox  # noqa: E402
from lti_service.submissions import service  # noqa: E402
from lti_service.submissions.models import Submission  # noqa: E402
from lti_service.submissions.settings import GradingSettings  # noqa: E402

CHECKPOINT = "arrays-04.checkpoint"
EXERCISE = "arrays-04.exercise.mask-tail"
SETTINGS = GradingSettings(queued_lease_s=60, running_lease_s=20, max_tries=3)
SETTLE_S = 120.0


@dataclass
class Consumer:
    """`pathways consumer` as a subprocess, restarted if it dies (as the supervisors do)."""

    env: dict[str, str]
    log: Path
    process: subprocess.Popen[bytes] | None = None
    restarts: int = 0
    exits: list[int] = field(default_factory=list)
    _watch: threading.Thread | None = None
    _stop: threading.Event = field(default_factory=threading.Event)

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "pathways", "consumer", "--outbox-every", "0.3",
                 "--reap-every", "1", "--outbox-concurrency", "8",
                 "--outbox-claim-s", "20"],
                env=self.env, stdout=out, stderr=subprocess.STDOUT)
        if self._watch is None:
            self._watch = threading.Thread(target=self._supervise, daemon=True)
            self._watch.start()

    def _supervise(self) -> None:
        while not self._stop.wait(0.2):
            if self.process is not None and self.process.poll() is not None:
                self.exits.append(self.process.returncode)
                if self.process.returncode == 78:
                    return
                self.restarts += 1
                self.start()

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()

    def stop(self) -> None:
        self._stop.set()
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()


class ScriptedGrader:
    """The grader's side of the queue protocol: claim, started, result (graded, full marks).
    Counts the gradings it ran, so a job graded twice shows."""

    def __init__(self, queues: Queues) -> None:
        self.queues = queues
        self.graded: Counter[tuple[str, int]] = Counter()
        self.stop = threading.Event()
        queues.on_job = self._job
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _job(self, job: dict[str, Any]) -> None:
        sid, attempt = job["submission_id"], job["attempt"]
        if not self.queues.claim(sid, attempt, "scripted", 3600):
            return
        self.queues.send("started", submission_id=sid, attempt=attempt, worker="scripted")
        self.graded[(sid, attempt)] += 1
        result = GradingResult(sid, attempt, job["exercise_id"], "graded", score=3.0,
                               max_score=3.0, feedback="ok")
        self.queues.send("result", result=result.to_dict())

    def _loop(self) -> None:
        while not self.stop.is_set():
            try:
                if not self.queues.process_one(self.queues.grading):
                    time.sleep(0.05)
            except Exception:  # noqa: BLE001 - Redis down: the real worker backs off too
                time.sleep(0.5)


@dataclass
class Row:
    fault: str
    sent: int
    recorded: int
    lost: int
    duplicated: int
    posted_twice: int
    false_failed: int
    stuck: int
    recovery_s: float
    graded_twice: int
    consumer_restarts: int
    gradebook_wrong: int = 0
    """Learners whose newest score is not the one the LMS gradebook holds."""

    def line(self) -> str:
        return (f"{self.fault:<24} sent {self.sent:>4}  recorded {self.recorded:>4}  lost "
                f"{self.lost}  duplicated {self.duplicated}  posted-twice {self.posted_twice}  "
                f"false-failed {self.false_failed}  stuck {self.stuck}  graded-twice "
                f"{self.graded_twice}  gradebook-wrong {self.gradebook_wrong}  "
                f"consumer-restarts {self.consumer_restarts}  recovery {self.recovery_s:.1f}s")

    @property
    def clean(self) -> bool:
        return not (self.lost or self.duplicated or self.posted_twice or self.false_failed
                    or self.stuck or self.graded_twice or self.gradebook_wrong)


class World:
    """One stack for one fault: fresh database, the servers' Redis, tool, LMS, consumer."""

    def __init__(self, servers: Servers, tmp: Path, prefix: str) -> None:
        self.servers = servers
        url = servers.fresh_database()
        os.environ["REDIS_URL"] = servers.redis_url
        os.environ["PATHWAYS_QUEUE_PREFIX"] = prefix
        os.environ["PATHWAYS_VAR_DIR"] = str(tmp / "var")
        self.stack: Stack = build_stack(url, tmp)
        self.lms = FaultyLms(self.stack.lms_server.app.wsgi_app)
        self.stack.lms_server.app.wsgi_app = self.lms
        self.queues = Queues(load_queue_config())
        self.grader = ScriptedGrader(self.queues)
        env = {**os.environ, "DATABASE_URL": url, "OUTBOX_RETRY_BASE_S": "1",
               "OUTBOUND_ALLOW_PRIVATE": "1", "TOOL_BASE_URL": self.stack.tool_url,
               "PATHWAYS_LOG_LEVEL": "WARNING"}
        self.consumer = Consumer(env, tmp / "consumer.log")
        self.consumer.start()
        self.checkpoint = self.stack.deep_link([CHECKPOINT], max_attempts=3)[0]["id"]
        self.exercise = self.stack.deep_link([EXERCISE], max_attempts=3)[0]["id"]
        self.tokens: list[str] = []
        self.expected_answers = 0
        self.expected_jobs = 0

    def close(self) -> None:
        self.consumer.stop()
        self.grader.stop.set()
        self.stack.tool_server.stop()
        self.stack.lms_server.stop()
        from lti_service.core.extensions import state

        state(self.stack.tool).engine.dispose()

    def launch(self, learners: int) -> None:
        from devlms.config import LEARNER, Person

        for i in range(learners):
            self.stack.lms_config.people[f"learner{i}"] = Person(
                f"learner{i}", f"Learner {i}", f"learner{i}@devlms.test", (LEARNER,))
            page = self.stack.launch(Browser(), self.checkpoint, f"learner{i}")
            assert page.status_code == 200, page.text[:300]
            self.tokens.append(page.url.split("lt=")[1].split("&")[0])
            if i < 2:  # the exercise's placement exists from its first launch
                exercise = self.stack.launch(Browser(), self.exercise, f"learner{i}")
                assert exercise.status_code == 200, exercise.text[:300]

    def answer_all(self, answers_each: int = 2) -> None:
        """Each learner answers ``answers_each`` times, each request sent twice (one key)."""
        pid = self._placement(CHECKPOINT)
        url = f"{self.stack.tool_url}/api/placements/{pid}/checkpoint-answers"
        for _ in range(answers_each):
            for token in self.tokens:
                key = uuid.uuid4().hex
                for _ in range(2):
                    for _ in range(30):  # a 503 (database down) says: try again in a moment
                        r = requests.post(url, json={"choice": "b"}, timeout=30, headers={
                            "X-Pathways-Launch": token, "Idempotency-Key": key})
                        if r.status_code != 503:
                            break
                        time.sleep(float(r.headers.get("Retry-After", "1")) / 5)
                    assert r.status_code == 201, r.text[:300]
                self.expected_answers += 1

    def submit_jobs(self, count: int) -> None:
        """``count`` submissions, each as the page sends it: with a request key, again after a
        fault (the 503 says to try again; the key makes the repeat the same attempt)."""
        from pathways.resilience import retry

        for _ in range(count):
            i = self.expected_jobs
            retry("chaos load", lambda i=i: self._submit(i), give_up_s=SETTLE_S)
            self.expected_jobs += 1

    def _submit(self, i: int) -> None:
        with self.stack.db() as session:
            placement = session.scalars(select(Placement).where(
                Placement.content_id == EXERCISE)).one()
            users = list(session.scalars(select(LmsUser).order_by(LmsUser.id)))
            service.submit(session, self.queues, SETTINGS, placement=placement,
                           user=users[i % len(users)], exercise_id=EXERCISE,
                           source=f"print({i})\n", request_key=f"job-{i:06d}",
                           max_attempts=10_000)

    def _placement(self, content_id: str) -> int:
        with self.stack.db() as session:
            return session.scalars(select(Placement.id).where(
                Placement.content_id == content_id)).one()

    def settled(self) -> bool:
        with self.stack.db() as session:
            pending = session.scalar(select(func.count()).select_from(ScoreOutbox).where(
                ScoreOutbox.status == "pending")) or 0
            open_jobs = session.scalar(select(func.count()).select_from(Submission).where(
                Submission.status.in_(("queued", "running")))) or 0
        return pending == 0 and open_jobs == 0

    def wait_settled(self, timeout_s: float) -> float:
        start = time.monotonic()
        while time.monotonic() - start < timeout_s:
            try:
                if self.settled():
                    return time.monotonic() - start
            except Exception:  # noqa: BLE001 - the database may still be coming back
                pass
            time.sleep(0.3)
        return float("inf")

    def failed_reasons(self) -> list[str]:
        with self.stack.db() as session:
            return [f"#{r.id} {r.source}: {r.last_error}" for r in session.scalars(
                select(ScoreOutbox).where(ScoreOutbox.status == "failed"))]

    def count(self, fault: str, recovery_s: float) -> Row:
        with self.stack.db() as session:
            attempts = session.scalar(select(func.count()).select_from(CheckpointAttempt)) or 0
            jobs = session.scalar(select(func.count()).select_from(Submission)) or 0
            graded = session.scalar(select(func.count()).select_from(Submission).where(
                Submission.status == "graded")) or 0
            statuses = Counter(session.scalars(select(ScoreOutbox.status)))
            wrong = self._gradebook_wrong(session)
        posts = Counter((p["lineitem"], str(p.get("userId")), str(p.get("timestamp")))
                        for p in self.stack.lms_store.score_posts)
        sent = self.expected_answers + self.expected_jobs
        recorded = attempts + graded
        return Row(fault=fault, sent=sent, recorded=recorded,
                   lost=max(sent - recorded, 0) + max(self.expected_jobs - jobs, 0),
                   duplicated=max(attempts - self.expected_answers, 0)
                   + max(jobs - self.expected_jobs, 0),
                   posted_twice=sum(1 for n in posts.values() if n > 1),
                   false_failed=statuses.get("failed", 0),
                   stuck=statuses.get("pending", 0) + (jobs - graded),
                   recovery_s=recovery_s,
                   graded_twice=sum(1 for n in self.grader.graded.values() if n > 1),
                   consumer_restarts=self.consumer.restarts, gradebook_wrong=wrong)

    def _gradebook_wrong(self, session: Any) -> int:
        """Learners whose newest score per placement is not what the LMS gradebook holds."""
        latest: dict[tuple[int, int], ScoreOutbox] = {}
        for row in session.scalars(select(ScoreOutbox).order_by(ScoreOutbox.id)):
            latest[(row.placement_id, row.user_id)] = row
        wrong = 0
        for row in latest.values():
            lineitem = row.placement.lineitem_url.rstrip("/").rsplit("/", 1)[-1]
            held = self.stack.lms_store.scores.get((lineitem, row.user.sub))
            if held is None or float(held.get("scoreGiven", -1)) != row.score:
                wrong += 1
        return wrong


@contextmanager
def world(servers: Servers, tmp: Path, name: str) -> Iterator[World]:
    w = World(servers, tmp / name, f"chaos-{name}-{uuid.uuid4().hex[:6]}-")
    try:
        yield w
    finally:
        w.close()
