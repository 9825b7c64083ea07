"""A grader worker: take a job, grade it in the sandbox, send the result back.

It reports ``started`` when it takes a job, a ``heartbeat`` every few seconds while it runs
(the service extends the lease), and the ``result``. If the worker dies, the heartbeats stop,
the lease expires and the service's reaper enqueues the job again.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from course.checks import HARNESS_PATH
from grader_worker.config import GraderConfig
from grader_worker.errors import GraderError
from grader_worker.grading import GradingTarget, grade
from grader_worker.limits import Limits
from grader_worker.runner import SandboxRunner
from grader_worker.seedpool import SeedPool
from grader_worker.sweep import sweep
from grading_contract.errors import JobError
from grading_contract.job import parse_job
from grading_contract.queues import Queues
from grading_contract.result import GradingResult
from pathways.resilience import retry

logger = logging.getLogger(__name__)
CLAIM_TTL_S = 24 * 3600
"""How long a claim keeps a duplicate copy of a job from running (a new try has a new key)."""
SEND_GIVE_UP_S = 3600.0


@functools.cache
def _course(root: Path | None):  # noqa: ANN202 - course.Course, imported lazily
    from course import load_course

    return load_course(root)


def course_checks_resolver(root: Path | None) -> Callable[[str], GradingTarget]:
    """exercise id -> what grading it needs, from the course at ``root`` (None: packaged)."""
    from course import submission_for

    def checks_for(exercise_id: str) -> GradingTarget:
        course = _course(root)
        found = course.exercise(exercise_id)
        if found is None:
            raise GraderError(f"exercise {exercise_id!r} is not in this worker's course: "
                              "update the worker to the service's course version")
        lesson, exercise = found

        def reference(variant: dict[str, Any]) -> str:
            return submission_for(lesson, exercise, exercise.for_variant(variant).solution_code)

        return GradingTarget(exercise.checks_path, reference if exercise.function else None,
                             exercise.param_space, exercise.checks_hash, course.version,
                             exercise.devices)

    return checks_for


def make_runner(config: GraderConfig, ceiling: Limits | None = None) -> SandboxRunner:
    """Cold runs, or forks of a warm sandboxed parent (PATHWAYS_GRADER_WARM)."""
    if config.warm:
        from grader_worker.warm import WarmRunner

        return WarmRunner(config, HARNESS_PATH, ceiling=ceiling)
    return SandboxRunner(config, HARNESS_PATH)


def make_pool(config: GraderConfig) -> SeedPool | None:
    """This host's seed pool (None: PATHWAYS_GRADER_SEED_POOL=off)."""
    if config.seed_pool is None:
        return None
    return SeedPool(config.seed_pool, size=config.seed_pool_size, min_draw=config.seed_pool_min)


class GraderWorker:
    def __init__(self, config: GraderConfig, queues: Queues, *,
                 checks_for: Callable[[str], Path | GradingTarget] | None = None,
                 ceiling: Limits | None = None) -> None:
        self.config = config
        self.queues = queues
        self.checks_for = checks_for or course_checks_resolver(config.course_root)
        self.ceiling = ceiling
        # PATHWAYS_GRADER_ID (default: the host name) names the lease holder too: containers on
        # the host's network share its host name and are all pid 1.
        self.id = f"{config.worker_name}:{os.getpid()}"
        sweep(config.worker_name, cgroup_root=config.cgroup_root)
        self.runner = make_runner(config, ceiling)
        self.pool = make_pool(config)
        self.stopping = threading.Event()
        self.state = "ok"
        queues.on_job = self.handle

    def close(self) -> None:
        self.runner.close()

    def handle(self, raw: dict[str, Any]) -> None:
        try:
            job = parse_job(raw)
        except JobError as exc:
            logger.error("dropping malformed job", extra={"error": str(exc)})
            return
        ident = {"submission_id": job.submission_id, "attempt": job.attempt}
        # Claim (submission, try) before running it: a second copy of this job (re-sent by a
        # reaper that could not see it was taken) finds the claim and is dropped, so a job is
        # graded once. The service's lease covers a worker that dies after claiming.
        if not retry("worker claim", lambda: self.queues.claim(
                job.submission_id, job.attempt, self.id, CLAIM_TTL_S), stopping=self.stopping):
            logger.warning("job already taken by another worker; dropped", extra=ident)
            return
        logger.info("job started", extra={**ident, "exercise_id": job.exercise_id})
        self._send("started", **ident, worker=self.id)
        stop = threading.Event()
        beat = threading.Thread(target=self._heartbeat, args=(ident, stop), daemon=True)
        beat.start()
        try:
            result = grade(job, runner=self.runner, checks_for=self.checks_for,
                           ceiling=self.ceiling, worker=self.id, pool=self.pool)
        finally:
            stop.set()
            beat.join()
        self.send_result(result)
        logger.info("job graded", extra={**ident, "outcome": result.outcome,
                                         "score": result.score, "run_s": result.timings.run_s})

    def send_result(self, result: GradingResult) -> None:
        self._send("result", result=result.to_dict())

    def _send(self, kind: str, **payload: Any) -> None:
        """Report to the service through a Redis restart or failover: back off and send again
        (a result is never dropped for a transient fault; the consumer applies it once)."""
        retry(f"worker send {kind}", lambda: self.queues.send(kind, **payload),
              stopping=self.stopping, give_up_s=SEND_GIVE_UP_S)

    def beat_forever(self, every_s: float) -> None:
        """The worker's heartbeat where the service reads it (``pathways status``)."""
        while not self.stopping.wait(every_s):
            try:
                self.queues.beat(self.id, self.state)
            except Exception:  # noqa: BLE001 - the queue down: status shows the beat stale
                logger.debug("worker heartbeat not written", exc_info=True)

    def _heartbeat(self, ident: dict[str, Any], stop: threading.Event) -> None:
        while not stop.wait(self.config.heartbeat_s):
            try:
                self.queues.send("heartbeat", **ident, worker=self.id)
            except Exception:  # noqa: BLE001 - a lost heartbeat only shortens the lease
                logger.warning("heartbeat not sent", extra=ident, exc_info=True)
