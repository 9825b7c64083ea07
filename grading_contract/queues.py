"""The queue transport: two huey queues, the same task code on SQLite and on Redis.

``pathways-grading`` carries grading jobs to grader workers; ``pathways-results`` carries what
workers report (started, heartbeat, result) back to ``pathways consumer``. Messages are JSON,
never pickle, and each is signed with the grading key (``signing``): a process that can write
to Redis but holds no key cannot inject a job or a score; what fails verification is refused
and logged before any handler sees it. Handlers are plugged in by the side that consumes
(``on_job`` in the worker, ``on_message`` in the consumer), so this module imports neither the
sandbox nor the service.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from huey import RedisHuey, SqliteHuey
from huey.api import Huey
from huey.registry import Message
from huey.serializer import Serializer

from grading_contract import signing
from grading_contract.errors import SignatureError

logger = logging.getLogger(__name__)

GRADING_QUEUE = "pathways-grading"
RESULTS_QUEUE = "pathways-results"
GRADE_TASK = "pathways.grade"
MESSAGE_TASK = "pathways.message"


class JsonSerializer(Serializer):
    """huey messages as JSON: no pickle crosses hosts."""

    def _serialize(self, data: Message) -> bytes:
        fields = data._asdict()
        if fields.get("on_complete") or fields.get("on_error"):
            raise ValueError("pathways queues do not use task pipelines")
        if isinstance(fields.get("eta"), dt.datetime):
            fields["eta"] = fields["eta"].isoformat()
        for key in ("expires_resolved",):
            if isinstance(fields.get(key), dt.datetime):
                fields[key] = fields[key].isoformat()
        fields["args"] = list(fields.get("args") or ())
        return json.dumps(fields).encode()

    def _deserialize(self, data: bytes) -> Message:
        fields = json.loads(data)
        for key in ("eta", "expires_resolved"):
            if isinstance(fields.get(key), str):
                fields[key] = dt.datetime.fromisoformat(fields[key])
        fields["args"] = tuple(fields.get("args") or ())
        return Message(**{k: fields.get(k) for k in Message._fields})


class QueueSettings(Protocol):
    """What the transport needs (``QueueConfig``; the worker's ``GraderConfig`` has it too)."""

    @property
    def var_dir(self) -> Path: ...
    @property
    def redis_url(self) -> str | None: ...
    @property
    def queue_prefix(self) -> str: ...
    @property
    def grading_key(self) -> bytes: ...


def make_huey(name: str, config: QueueSettings) -> Huey:
    """One queue: RedisHuey when REDIS_URL is set, else SqliteHuey under the var dir."""
    full = f"{config.queue_prefix}{name}"
    common: dict[str, Any] = {"results": False, "serializer": JsonSerializer(), "utc": True}
    if config.redis_url:
        return RedisHuey(full, url=config.redis_url, **common)
    folder = config.var_dir / "queue"
    folder.mkdir(parents=True, exist_ok=True)
    return SqliteHuey(full, filename=str(folder / f"{full}.sqlite3"), **common)


class Queues:
    """Both queues and their two tasks; handlers are set by whoever consumes."""

    def __init__(self, config: QueueSettings) -> None:
        if not config.grading_key:
            raise ValueError("the queues need the grading key (grading_contract.config)")
        self.config = config
        self._key = config.grading_key
        self.grading = make_huey(GRADING_QUEUE, config)
        self.results = make_huey(RESULTS_QUEUE, config)
        self.on_job: Callable[[dict[str, Any]], None] | None = None
        self.on_message: Callable[[dict[str, Any]], None] | None = None
        self.refused = 0
        """Messages refused for a missing or wrong signature (also logged)."""
        self._grade = self.grading.task(name=GRADE_TASK)(self._run_job)
        self._message = self.results.task(name=MESSAGE_TASK)(self._run_message)

    def _open(self, purpose: str, envelope: Any) -> dict[str, Any] | None:
        try:
            return signing.verify(self._key, purpose, envelope)
        except SignatureError as exc:
            self.refused += 1
            logger.error("queue message refused: forged or tampered",
                         extra={"purpose": purpose, "reason": str(exc)})
            return None

    def _run_job(self, envelope: Any) -> None:
        if self.on_job is None:
            raise RuntimeError("no grading handler: run `pathways worker`")
        job = self._open(signing.JOB, envelope)
        if job is not None:
            self.on_job(job)

    def _run_message(self, envelope: Any) -> None:
        if self.on_message is None:
            raise RuntimeError("no results handler: run `pathways consumer`")
        message = self._open(signing.MESSAGE, envelope)
        if message is not None:
            self.on_message(message)

    def enqueue_job(self, job: dict[str, Any]) -> None:
        """Service side: put a grading job (docs/CONTRACTS.md section 5) on the queue."""
        self._grade(signing.sign(self._key, signing.JOB, job))

    def send(self, kind: str, **payload: Any) -> None:
        """Worker side: report ``started`` / ``heartbeat`` / ``result`` to the service."""
        self._message(signing.sign(self._key, signing.MESSAGE, {"kind": kind, **payload}))

    def queued_jobs(self) -> set[tuple[str, int]]:
        """(submission_id, attempt) of every genuine job waiting in the grading queue (the
        reaper compares this with the submissions that should be there)."""
        found: set[tuple[str, int]] = set()
        for task in self.grading.pending():
            body = None
            if task.name == GRADE_TASK and task.args:
                try:
                    body = signing.verify(self._key, signing.JOB, task.args[0])
                except SignatureError:
                    continue
            if body is not None:
                found.add((str(body.get("submission_id")), body.get("attempt")))
        return found

    def pending(self) -> dict[str, int]:
        return {"grading": self.grading.pending_count(), "results": self.results.pending_count()}

    def process_one(self, huey: Huey) -> bool:
        """Dequeue and execute one task of ``huey`` in this process; False when empty."""
        task = huey.dequeue()
        if task is None:
            return False
        huey.execute(task)
        return True
