"""Constants and builders the grader tests share (conftest holds only fixtures)."""

from __future__ import annotations

import time
from pathlib import Path

from grader_worker.job import Job
from grader_worker.limits import Limits

HERE = Path(__file__).parent
FIXTURE_CHECKS = HERE / "fixtures" / "checks.py"
GOOD = HERE / "fixtures" / "good.py"
CANARY = "pathways-canary-7d1f0c"

# Small limits keep the corpus fast: loops stop at 3 CPU seconds, sleeps at 10 s wall.
CORPUS_LIMITS = Limits(wall_s=10, cpu_s=3, memory_mb=1024, data_mb=768, pids=128,
                       output_bytes=64 * 1024)


def make_job(source: str, exercise_id: str = "test.exercise.mask-tail",
             submission_id: str = "sub-1", attempt: int = 1) -> Job:
    return Job(submission_id, attempt, exercise_id, source, time.time(), {})
