"""Through real huey queues (SQLite and Redis): a job or result message that a process with
write access to the queue made without the grading key is refused and logged, never handled."""

from __future__ import annotations

import logging
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from grading_contract import signing
from grading_contract.config import load_queue_config
from grading_contract.queues import Queues

JOB = {"submission_id": "s1", "attempt": 1, "exercise_id": "e", "source": "print(1)\n",
       "limits": {}, "enqueued_at": 1.5}


@pytest.fixture(params=["sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def pair(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Queues, Queues]:
    """The genuine queues and an attacker's handle on the same queues, with another key."""
    env = {"PATHWAYS_VAR_DIR": str(tmp_path), "PATHWAYS_QUEUE_PREFIX": f"sig-{uuid.uuid4().hex}-"}
    if request.param == "redis":
        env["REDIS_URL"] = request.getfixturevalue("redis_url").rsplit("/", 1)[0] + "/13"
    config = load_queue_config(env)
    return Queues(config), Queues(replace(config, grading_key=b"attacker" * 4))


def _drain(queues: Queues, which: str) -> None:
    huey = getattr(queues, which)
    while queues.process_one(huey):
        pass


def test_forged_and_tampered_results_are_refused(pair, caplog) -> None:  # noqa: ANN001
    queues, attacker = pair
    seen: list[dict] = []
    queues.on_message = seen.append
    attacker.send("result", result={"submission_id": "s1", "score": 3.0})
    genuine = signing.sign(queues.config.grading_key, signing.MESSAGE,
                           {"kind": "result", "result": {"submission_id": "s1", "score": 0.0}})
    genuine["body"]["result"]["score"] = 3.0
    attacker._message(genuine)  # a signed message, its score changed on the way
    attacker._message({"kind": "result", "result": {"submission_id": "s1"}})  # unsigned
    queues.send("heartbeat", submission_id="s1", attempt=1, worker="w")
    with caplog.at_level(logging.ERROR, logger="grading_contract.queues"):
        _drain(queues, "results")
    assert seen == [{"kind": "heartbeat", "submission_id": "s1", "attempt": 1, "worker": "w"}]
    assert queues.refused == 3
    assert sum("refused" in r.getMessage() for r in caplog.records) == 3


def test_a_forged_job_never_reaches_the_grader(pair) -> None:  # noqa: ANN001
    queues, attacker = pair
    jobs: list[dict] = []
    queues.on_job = jobs.append
    attacker.enqueue_job({**JOB, "submission_id": "forged"})
    queues.enqueue_job(JOB)
    assert queues.queued_jobs() == {("s1", 1)}, "the reaper counts only genuine jobs"
    _drain(queues, "grading")
    assert jobs == [JOB] and queues.refused == 1
