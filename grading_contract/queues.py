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
from huey.storage import RedisStorage

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


def _on_redis(storage: object) -> bool:
    return isinstance(storage, RedisStorage)


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
        """Dequeue and execute one task of ``huey`` in this process; False when empty.
        At most once: a task taken off the queue is gone if this process dies running it
        (the worker side: a job's claim and the lease cover it)."""
        task = huey.dequeue()
        if task is None:
            return False
        huey.execute(task)
        return True

    def apply_one(self, huey: Huey) -> bool:
        """At least once: take one task without removing it, run its handler, and remove it
        only after the handler returned. A handler error (the database down) puts it back at
        the head of the queue and propagates; a process that dies mid-way leaves it in the
        processing list, put back by ``recover``. Handlers must be idempotent (results are:
        one grading run per submission and try). False when empty."""
        storage = huey.storage
        if _on_redis(storage):
            data = storage.conn.rpoplpush(storage.queue_key, self._processing(huey))
            if data is None:
                return False
            try:
                huey.deserialize_task(data).execute()
            except Exception:
                pipe = storage.conn.pipeline()
                pipe.lrem(self._processing(huey), 1, data)
                pipe.rpush(storage.queue_key, data)  # the head: dequeue pops from the right
                pipe.execute()
                raise
            storage.conn.lrem(self._processing(huey), 1, data)
            return True
        found = storage.sql("select id, data from task where queue = ? order by priority desc,"
                            " id limit 1", (storage.name,), results=True)
        if not found:
            return False
        task_id, data = found[0]
        huey.deserialize_task(data).execute()  # an error leaves the row where it was
        storage.sql("delete from task where id = ?", (task_id,), commit=True)
        return True

    def _processing(self, huey: Huey) -> str:
        return f"{huey.storage.queue_key}.processing"

    def recover(self, huey: Huey) -> int:
        """Put back what a consumer that died mid-``apply_one`` left in the processing list
        (one consumer per queue prefix; run at its start). Returns how many."""
        storage = huey.storage
        if not _on_redis(storage):
            return 0
        moved = 0
        while storage.conn.rpoplpush(self._processing(huey), storage.queue_key) is not None:
            moved += 1
        return moved

    # Claims: a worker claims (submission, try) before it runs it; a second copy of the same
    # job (resent by a reaper that could not see it was taken) finds the claim and is dropped,
    # so a job is graded once. Kept in the grading queue's store (Redis or the SQLite file).
    def claim(self, submission_id: str, attempt: int, worker: str, ttl_s: int) -> bool:
        """Take (submission, try) for ``worker``; False when another copy already has it."""
        key = f"claim:{submission_id}:{attempt}"
        storage = self.grading.storage
        if _on_redis(storage):
            return bool(storage.conn.set(f"{storage.queue_key}.{key}", worker.encode(),
                                         nx=True, ex=max(ttl_s, 1)))
        return bool(storage.put_if_empty(key, worker.encode()))

    def claimed(self, submission_id: str, attempt: int) -> bool:
        key = f"claim:{submission_id}:{attempt}"
        storage = self.grading.storage
        if _on_redis(storage):
            return bool(storage.conn.exists(f"{storage.queue_key}.{key}"))
        return storage.has_data_for_key(key)

    # Heartbeats of the workers, where the service can read them (``pathways status``).
    def beat(self, part: str, state: str, ttl_s: int = 3600) -> None:
        body = json.dumps({"at": dt.datetime.now(dt.UTC).isoformat(), "state": state[:300]})
        storage = self.grading.storage
        if _on_redis(storage):
            storage.conn.set(f"{storage.queue_key}.beat:{part}", body, ex=ttl_s)
        else:
            storage.put_data(f"beat:{part}", body.encode())

    def beats(self) -> dict[str, dict[str, str]]:
        """part -> {"at": ISO time, "state": ...} of every worker's last heartbeat."""
        storage = self.grading.storage
        found: dict[str, dict[str, str]] = {}
        if _on_redis(storage):
            prefix = f"{storage.queue_key}.beat:"
            for key in storage.conn.scan_iter(match=prefix + "*", count=200):
                raw = storage.conn.get(key)
                if raw:
                    found[key.decode()[len(prefix):]] = json.loads(raw)
            return found
        rows = storage.sql("select key, value from kv where queue = ? and key like 'beat:%'",
                           (storage.name,), results=True)
        for key, value in rows:
            found[str(key)[5:]] = json.loads(bytes(value))
        return found
