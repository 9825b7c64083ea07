"""A SIGKILLed worker's run directories and cgroups are removed when a worker of the same name
starts again; nothing of a live worker or of another worker name is touched."""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from grader_helpers import collect, start_worker, worker_env

from course import load_course, submission_for
from grader_worker.config import load_config
from grader_worker.sandbox import cgroups
from grader_worker.sweep import owner_prefix, owner_tag, sweep
from grading_contract.queues import Queues
from grading_contract.result import result_from_dict

MB = 1024 * 1024


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def _leftover(tag: str, tmp: Path) -> tuple[Path, cgroups.RunCgroup, subprocess.Popen[bytes]]:
    """A run directory (learner-made, with an unreadable subtree) and a cgroup holding a live
    process, as a killed worker leaves them."""
    run_dir = Path(tmp) / f"{tag}runs"
    (run_dir / "run-1" / "deep" / "er").mkdir(parents=True)
    (run_dir / "run-1" / "deep" / "er" / "f").write_text("x")
    os.chmod(run_dir / "run-1" / "deep", 0)
    group = cgroups.create(f"{tag}{uuid.uuid4().hex[:8]}", memory_bytes=64 * MB, pids=8)
    proc = subprocess.Popen(["sleep", "300"])
    for procs in group.procs_files:
        procs.write_text(str(proc.pid))
    return run_dir, group, proc


@pytest.fixture
def name() -> Iterator[str]:
    yield f"test-{uuid.uuid4().hex[:8]}"


def test_sweep_removes_only_a_dead_workers_leftovers(name: str, tmp_path: Path) -> None:
    dead = _leftover(owner_tag(name, _dead_pid()), tmp_path)
    live_owner = subprocess.Popen(["sleep", "300"])
    live = _leftover(owner_tag(name, live_owner.pid), tmp_path)
    other = _leftover(owner_tag(name + "-other", _dead_pid()), tmp_path)
    try:
        swept = sweep(name, tmp=tmp_path)
        run_dir, group, proc = dead
        assert not run_dir.exists() and not any(d.exists() for d in group.dirs)
        assert proc.wait(timeout=10) == -9, "what ran in the leftover cgroup is killed"
        assert set(swept.dirs) == {run_dir} and set(swept.cgroups) == set(group.dirs)
        for kept_dir, kept_group, kept_proc in (live, other):
            assert kept_dir.exists() and all(d.exists() for d in kept_group.dirs)
            assert kept_proc.poll() is None
    finally:
        live_owner.kill()
        live_owner.wait()
        for _, group, proc in (dead, live, other):
            proc.kill()
            proc.wait()
            group.remove()


@pytest.mark.slow
def test_a_restarted_worker_removes_what_its_killed_predecessor_left(
        name: str, tmp_path: Path) -> None:
    """A real `pathways worker` is SIGKILLed mid-run; the next one (same PATHWAYS_GRADER_ID)
    starts clean and grades the next job with full marks."""
    env = {**worker_env(tmp_path / "var", f"sweep-{uuid.uuid4().hex[:8]}-"),
           "PATHWAYS_GRADER_ID": name}
    queues = Queues(load_config(env))
    lesson, exercise = load_course(load_config(env).course_root).exercises()[0]
    solution = submission_for(lesson, exercise, exercise.solution_code)

    def enqueue(sid: str, source: str) -> None:
        queues.enqueue_job({"submission_id": sid, "attempt": 1, "exercise_id": exercise.id,
                            "source": source, "limits": {}, "enqueued_at": time.time()})

    def leftovers() -> list[Path]:
        found = list(Path("/tmp").glob(f"{owner_prefix(name)}*"))
        for base in dict.fromkeys([*cgroups._bases(None)]):
            found += list(base.glob(f"{owner_prefix(name)}*"))
        return found

    enqueue("slow", "import time\ntime.sleep(60)\n")
    first = start_worker(env, tmp_path / "first.log", concurrency=1)
    try:
        deadline = time.time() + 90
        while "job started" not in (tmp_path / "first.log").read_text() \
                and time.time() < deadline:
            time.sleep(0.2)
        time.sleep(1.0)  # the run's sandbox is up
        first.kill()
        first.wait(timeout=30)
        left = leftovers()
        assert any("cgroup" in str(p) for p in left) and any("/tmp/" in str(p) for p in left)
        enqueue("next", solution)
        second = start_worker(env, tmp_path / "second.log", concurrency=1)
        try:
            got = collect(queues, {"next"}, timeout=120)
            assert not set(left) & set(leftovers()), "the killed worker's leftovers remain"
        finally:
            second.terminate()
            second.wait(timeout=60)
    finally:
        first.kill()
    result = result_from_dict(got["next"])
    assert result.outcome == "graded" and result.score == result.max_score > 0
    assert not leftovers(), "a cleanly stopped worker leaves nothing either"
