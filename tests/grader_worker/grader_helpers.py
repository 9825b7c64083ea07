"""Constants and builders the grader tests share (conftest holds only fixtures)."""

from __future__ import annotations

import time
from pathlib import Path

from grader_worker.limits import Limits
from grading_contract.job import Job
from grading_contract.result import HOST_OUTCOMES, GradingResult

HERE = Path(__file__).parent
FIXTURE_CHECKS = HERE / "fixtures" / "checks.py"
GOOD = HERE / "fixtures" / "good.py"
CANARY = "pathways-canary-7d1f0c"

# Small limits keep the corpus fast: loops stop at 5 CPU seconds, other runs at 15 s wall. The
# two programs that import JAX (about 2 s of CPU, 3 s of wall with the corpus's 3 runs on 2
# cores) keep a 5x margin; the sleeper has a wall clock of its own (SLEEPER_LIMITS).
CORPUS_LIMITS = Limits(wall_s=15, cpu_s=5, memory_mb=1024, data_mb=768, pids=128,
                       output_bytes=64 * 1024)


SLEEPER_LIMITS = {"wall_s": 5}
"""The sleeper's own job limits (under the corpus's ceiling): it only waits, so a wall clock of
15 s proves nothing more than 5, and at 15 it set each corpus's length (the cold corpus 17.4
-> 11.7 s, the warm one 20.2 -> 16.0 s, quiet machine, 2026-12-07)."""
LONGEST = ("sleep_past_timeout.py", "infinite_loop.py", "fork_bomb.py", "memory_bomb.py")
"""The corpus's longest runs (the sleeper waits out its wall limit, the loop its CPU limit):
started first, so the others share the remaining threads meanwhile."""
CORPUS = sorted((HERE / "hostile").glob("*.py"),
                key=lambda p: (LONGEST.index(p.name) if p.name in LONGEST else len(LONGEST),
                               p.name))
TIMEOUT_SAYS = {"memory_bomb.py": "MB of its 768 MB memory limit",
                "infinite_loop.py": "endless loop"}
"""What a timeout's feedback says of the program: a memory bomb that ran out of CPU first
(grading.MEMORY_NOTED) is told what it held, a loop is told to look for a loop."""
TRUSTED_CPU_S = 2.0
"""Thread CPU seconds the trusted process may spend on one job, whatever the program did
(today's figures are ~0.1 s; cleaning up after a learner once cost 7-14 s)."""


def expected(path: Path) -> set[str]:
    first = path.read_text().splitlines()[0]
    assert first.startswith("# expect: "), f"{path.name}: first line must be '# expect: ...'"
    return set(first.removeprefix("# expect: ").split())


def grade_corpus(runner, secret_dir: Path, paths: list[Path] = CORPUS,  # noqa: ANN001
                 workers: int = 3) -> dict[str, tuple[GradingResult, float]]:
    """Grade each hostile program, ``workers`` at a time, with a canary in the worker's
    environment: file name -> (result, CPU seconds the grading thread spent)."""
    import os
    import resource
    from concurrent.futures import ThreadPoolExecutor

    from grader_worker.grading import grade

    def one(path: Path) -> tuple[str, tuple[GradingResult, float]]:
        before = resource.getrusage(resource.RUSAGE_THREAD)
        result = grade(corpus_job(path, secret_dir), runner=runner,
                       checks_for=lambda _: FIXTURE_CHECKS, ceiling=CORPUS_LIMITS)
        after = resource.getrusage(resource.RUSAGE_THREAD)
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        return path.name, (result, cpu)

    os.environ["PATHWAYS_CANARY_SECRET"] = CANARY
    os.environ["XLA_FLAGS"] = "--xla_dump_to=/tmp/learner-chosen"
    try:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return dict(pool.map(one, paths))
    finally:
        del os.environ["PATHWAYS_CANARY_SECRET"], os.environ["XLA_FLAGS"]


def assert_clear_failure(path: Path, result: GradingResult) -> None:
    """The corpus's contract: the expected outcome, feedback, no points, no canary."""
    assert result.outcome in expected(path), (path.name, result.outcome, result.feedback,
                                              result.stderr)
    assert result.score < result.max_score == 3.0
    assert result.feedback, "every outcome carries feedback"
    if result.outcome == "timeout" and path.name in TIMEOUT_SAYS:
        assert TIMEOUT_SAYS[path.name] in result.feedback, result.feedback
    assert CANARY not in result.stdout + result.stderr + result.feedback
    if result.outcome != "graded":
        assert result.score == 0.0


def make_job(source: str, exercise_id: str = "test.exercise.mask-tail",
             submission_id: str = "sub-1", attempt: int = 1,
             limits: dict | None = None) -> Job:
    return Job(submission_id, attempt, exercise_id, source, time.time(), dict(limits or {}))


def corpus_job(path: Path, secret_dir: Path) -> Job:
    """A hostile program's job: its placeholders filled, the sleeper's wall clock short."""
    source = (path.read_text().replace("__SECRET_DIR__", str(secret_dir))
              .replace("__CHECKS_PATH__", str(FIXTURE_CHECKS)))
    limits = SLEEPER_LIMITS if path.name == "sleep_past_timeout.py" else None
    return make_job(source, submission_id=path.stem, limits=limits)


def worker_env(var_dir: Path, prefix: str, redis_url: str | None = None,
               heartbeat_s: float = 1.0, *, warm: bool = False) -> dict[str, str]:
    """Environment of a `pathways worker` subprocess: only the queue, as on a TPU host
    (``warm``: runs forked from a warm sandboxed parent, PATHWAYS_GRADER_WARM)."""
    import os

    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "COURSE_ROOT")}
    env.update(JAX_PLATFORMS="cpu", PATHWAYS_VAR_DIR=str(var_dir),
               PATHWAYS_QUEUE_PREFIX=prefix, PATHWAYS_GRADER_HEARTBEAT_S=str(heartbeat_s))
    if redis_url:
        env["REDIS_URL"] = redis_url
    if warm:
        env["PATHWAYS_GRADER_WARM"] = "1"
    return env


def drawing_from(env: dict[str, str], pool: Path) -> dict[str, str]:
    """``env`` with a copy of ``pool`` (conftest's ``course_pool``) as the worker's seed pool,
    drawn from at one entry a key: a submission of an exercise it holds takes one run. Its
    runs read the compilation cache `pathways seed-pool` warmed beside the pool (read-only in
    every run, so workers can share it)."""
    import sqlite3

    folder = Path(env["PATHWAYS_VAR_DIR"]) / "grader"
    folder.mkdir(parents=True, exist_ok=True)
    source, copy = sqlite3.connect(pool), sqlite3.connect(folder / "seed-pool.sqlite")
    try:
        source.backup(copy)  # the whole database, whatever its journal holds
    finally:
        source.close()
        copy.close()
    (folder / "seed-pool.sqlite").chmod(0o600)
    return {**env, "PATHWAYS_GRADER_SEED_POOL_SIZE": "1",
            "PATHWAYS_GRADER_COMPILE_CACHE": str(pool.parent / "compile-cache")}


def start_worker(env: dict[str, str], log: Path, concurrency: int = 2):  # noqa: ANN201
    """A real `pathways worker` process (the console script of this venv)."""
    import subprocess
    import sys

    exe = Path(sys.executable).with_name("pathways")
    with log.open("ab") as out:  # the child keeps its own copy of the descriptor
        return subprocess.Popen([str(exe), "worker", "--concurrency", str(concurrency)],
                                env=env, stdout=out, stderr=subprocess.STDOUT,
                                cwd=Path(__file__).parents[2])


SERVICE_TRIES = 3
"""A job's tries before the service gives up on it (lti_service.submissions.settings)."""


def collect(queues, wanted: set[str], timeout: float, kinds=("result",), *,  # noqa: ANN001
            retry: dict[str, dict] | None = None) -> dict[str, dict]:
    """Consume the results queue in this process until every wanted submission reported.

    ``retry`` (the jobs sent, by submission id): a host outcome (``host_timeout``,
    ``infrastructure_error``: the host's doing, never the program's) is sent again as the
    service sends it, the same job with the next try, up to ``SERVICE_TRIES``; only the last
    try's result is kept. A loaded test host can starve a correct run past its wall clock.
    """
    got: dict[str, dict] = {}
    seen: list[dict] = []
    again: list[dict] = []

    def on_message(message: dict) -> None:
        seen.append(message)
        if message["kind"] != "result":
            return
        result = message["result"]
        job = (retry or {}).get(result["submission_id"])
        if (job is not None and result["outcome"] in HOST_OUTCOMES
                and result["attempt"] < job["attempt"] + SERVICE_TRIES - 1):
            again.append({**job, "attempt": result["attempt"] + 1, "enqueued_at": time.time()})
            return
        got[result["submission_id"]] = result

    queues.on_message = on_message
    deadline = time.time() + timeout
    while not wanted <= set(got) and time.time() < deadline:
        if not queues.process_one(queues.results):
            time.sleep(0.1)
        while again:
            queues.enqueue_job(again.pop())
            deadline += timeout / max(1, len(wanted))  # a retried job's own share of time
    return got
