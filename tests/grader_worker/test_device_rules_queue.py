"""Phase 04's partition rules through the real queue and a real warm `pathways worker`.

The exercises declare 8 devices; one warm zygote serves them (and would serve a 1-device job
next). For each rule one counterexample that gets the numbers right (the array left on one
device, the result copied into the asked layout after computing on one device, the
partitioner's step where shard_map is taught) is sent beside the exercise's reference: the
reference keeps full marks and its result records 8 devices, the counterexample loses the
rule's points and stays within its declared bound. The worker draws from a copy of
conftest's ``course_pool``, so each submission takes one sandboxed run.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from conftest import CoursePool
from grader_helpers import collect, drawing_from, start_worker, worker_env
from test_method_rules_queue import _jobs, _send

from course import load_course
from grader_worker.config import load_config
from grading_contract.queues import Queues
from grading_contract.result import result_from_dict

CASES = {
    "layout read from the run": ("parallel-01.exercise.spread", "unchanged",
                                 "with the asked layout"),
    "collectives in the compiled program": ("parallel-02.exercise.partitioned-matmul",
                                            "replicate-after", "compiles to a program with"),
    "a per-device program": ("parallel-03.exercise.data-parallel-grad", "partitioner-does-it",
                             "is a shard_map"),
}


@pytest.mark.slow
def test_each_partition_rule_refuses_a_counterexample_on_8_devices(
        tmp_path: Path, course_pool: CoursePool) -> None:
    env = drawing_from(worker_env(tmp_path / "var", f"test-{uuid.uuid4().hex[:8]}-", warm=True),
                       course_pool.path)
    queues = Queues(load_config(env))
    course = load_course(load_config(env).course_root)
    jobs = _jobs(course, CASES)
    sent = _send(queues, course, jobs)
    proc = start_worker(env, tmp_path / "worker.log", concurrency=1)  # 8-device runs: one at
    # a time, so a loaded 2-core host does not stretch each past its wall clock
    try:
        got = collect(queues, set(jobs), timeout=120 + 60 * len(jobs), retry=sent)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    log = (tmp_path / "worker.log").read_text()
    assert set(got) == set(jobs), f"missing results; worker log:\n{log[-3000:]}"
    for sid, (_, bound, title, _) in jobs.items():
        result = result_from_dict(got[sid])
        assert result.outcome == "graded", (sid, result.feedback, result.stderr[-2000:])
        assert result.environment.device_count == 8, sid
        if sid.endswith(":reference"):
            assert result.score == result.max_score, (sid, result.checks)
            continue
        assert result.score <= bound < result.max_score, (sid, result.score, result.checks)
        failed = [c.name for c in result.checks if c.status != "passed"]
        assert any(title in name for name in failed), (sid, failed)
