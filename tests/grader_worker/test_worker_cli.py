"""`pathways worker --check`: the health check probes JAX inside the sandbox and the queue."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from grader_helpers import worker_env


def test_worker_check_reports_devices_and_queue(tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("pathways")
    done = subprocess.run([str(exe), "worker", "--platform", "cpu", "--check"],
                          env=worker_env(tmp_path / "var", "check-"), capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("ok: cpu x1, jax 0.10.2, 0 job(s) waiting"), done.stdout
    assert '"msg": "worker ready"' in done.stderr and '"queue": "sqlite"' in done.stderr


def test_worker_rejects_an_unknown_platform(tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("pathways")
    done = subprocess.run([str(exe), "worker", "--platform", "gpu"], capture_output=True,
                          text=True, env=worker_env(tmp_path / "var", "x-"), timeout=60)
    assert done.returncode == 2 and "'gpu' is not one of 'cpu', 'tpu'" in done.stderr


def test_worker_refuses_to_start_where_runs_would_have_no_cgroup(tmp_path: Path) -> None:
    """No pids cgroup means a learner's fork bomb reaches the host's task limit: the worker
    stops at start with the reason, unless the operator accepts rlimits only."""
    exe = Path(sys.executable).with_name("pathways")
    env = {**worker_env(tmp_path / "var", "nocg-"),
           "PATHWAYS_GRADER_CGROUP_ROOT": "/pathways-test-no-such-cgroup/worker"}
    refused = subprocess.run([str(exe), "worker", "--platform", "cpu", "--check"], env=env,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1 and not refused.stdout
    assert "no per-run cgroup can be made here (FileNotFoundError" in refused.stderr
    assert "PATHWAYS_GRADER_ALLOW_NO_CGROUP=1" in refused.stderr
    assert not (tmp_path / "var" / "queue").exists(), "no queue was opened"

    allowed = subprocess.run([str(exe), "worker", "--platform", "cpu", "--check"],
                             env={**env, "PATHWAYS_GRADER_ALLOW_NO_CGROUP": "1"},
                             capture_output=True, text=True, timeout=300)
    assert allowed.returncode == 0, allowed.stderr[-2000:]
    assert allowed.stdout.startswith("ok: cpu x1")
    assert "running without per-run cgroups" in allowed.stderr


def test_an_idle_worker_reads_a_polled_queue_often_and_a_blocking_one_as_jobs_arrive(
        tmp_path: Path) -> None:
    """SQLite's queue is polled: an idle run slot reads it at least every 0.1 s, so a
    submission on a quiet system starts within ~0.1 s, not up to the second huey's backoff
    allowed before. Redis hands a job to a blocked reader (BRPOP) as it arrives; its interval
    only paces retries while Redis is down."""
    from grader_worker.cli import grading_consumer
    from grader_worker.config import load_config
    from grading_contract.queues import Queues

    sqlite = load_config(worker_env(tmp_path / "a", "poll-"))
    queues = Queues(sqlite)
    consumer = grading_consumer(queues, 2)
    assert not queues.grading.storage.blocking
    assert consumer.workers == 2 and consumer.max_delay <= 0.1
    redis = load_config(worker_env(tmp_path / "b", "poll-", "redis://127.0.0.1:9/0"))
    queues = Queues(redis)
    assert queues.grading.storage.blocking
    assert grading_consumer(queues, 1).max_delay == 1.0
