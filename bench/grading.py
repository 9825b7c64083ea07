"""Benchmark the submission path: submit -> queue -> sandboxed grading -> recorded score.

M submissions of the course's exercises (reference solutions, starters, and a few that loop
until the timeout) go through the real queue (SQLite by default, Redis with REDIS_URL) to 1 and
then 2 real `pathways worker` processes; a consumer in this process records the results in a
fresh SQLite service database. Prints submissions/minute, median and p95 submit-to-recorded
score, and the median over a bare `python main.py` of the first four gradable files (one at a
time: each submission also over a bare run of its own file); appends one JSON line to
bench/results/grading.jsonl and draws bench/results/grading.png.

    .venv/bin/python -m bench.grading [--submissions 12] [--workers 1,2] [--warm] [--pool N]

(`scripts/bench.sh` runs it as `python -P bench/grading.py`; `python -m bench.grading` works too.)
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from sqlalchemy import select

from course import load_course, submission_for
from grader_worker.config import load_config
from grading_contract.queues import Queues
from lti_service.consumer import Consumer
from lti_service.core.db import make_engine, make_session_factory, upgrade
from lti_service.core.models import LmsContext, LmsUser, Placement, Platform
from lti_service.submissions import service
from lti_service.submissions.models import Submission
from lti_service.submissions.settings import GradingSettings

sys.path.append(str(Path(__file__).resolve().parent))  # last: bench helpers never shadow packages
import _results  # noqa: E402

logger = logging.getLogger("bench.grading")
RESULTS = _results.RESULTS
LOOP = "\nwhile True:\n    pass\n"


def corpus(m: int) -> list[tuple[str, str, str]]:
    """(exercise id, kind, source): solutions and starters in turn, every 6th a timeout."""
    pairs = load_course(load_config().course_root).exercises()
    out: list[tuple[str, str, str]] = []
    i = 0
    while len(out) < m:
        lesson, ex = pairs[i % len(pairs)]
        kind = "timeout" if len(out) % 6 == 5 else ("correct" if i % 2 == 0 else "wrong")
        code = ex.solution_code if kind != "wrong" else ex.starter_code
        source = submission_for(lesson, ex, code) + (LOOP if kind == "timeout" else "")
        out.append((ex.id, kind, source))
        i += 1
    return out


def bare_python_s(sources: list[str], tmp: Path) -> list[float]:
    """Wall time of a bare `python main.py` of each source (no sandbox, no queue)."""
    times = []
    for n, source in enumerate(sources):
        path = tmp / f"bare-{n}.py"
        path.write_text(source)
        start = time.perf_counter()
        subprocess.run([sys.executable, str(path)], capture_output=True, cwd=tmp,
                       env={**os.environ, "JAX_PLATFORMS": "cpu"}, check=False)
        times.append(time.perf_counter() - start)
    return times


def over_own_bare(exercise_ids: list[str], latencies: list[float | None],
                  bare: list[float]) -> dict:
    """Each one-at-a-time submission's latency over a bare run of the same program: the
    exercises differ 3-4x in weight, so a median over another set of programs would compare
    light runs with heavy ones (issue 23's target reads per submission)."""
    ratios = [(e, round(lat / b, 2)) for e, lat, b in zip(exercise_ids, latencies, bare,
                                                          strict=True) if lat is not None]
    return {"median_over_own_bare": round(statistics.median(r for _, r in ratios), 2)
            if ratios else None, "over_own_bare": ratios}


def _rows(sessions) -> tuple[int, int]:  # noqa: ANN001
    with sessions() as s:
        platform_row = Platform(issuer="https://bench.lms", client_id="bench", name="bench",
                                auth_login_url="https://bench.lms/a",
                                auth_token_url="https://bench.lms/t",
                                key_set_url="https://bench.lms/k")
        s.add(platform_row)
        s.flush()
        context = LmsContext(platform_id=platform_row.id, context_id="c", title="bench")
        user = LmsUser(platform_id=platform_row.id, sub="bench-user", name="Bench")
        s.add_all([context, user])
        s.flush()
        placement = Placement(context_id=context.id, resource_link_id="rl", content_id="x",
                              lineitem_url=None, max_attempts=0, counting="best")
        s.add(placement)
        s.commit()
        return placement.id, user.id


def worker_env(tmp: Path, warm: bool, pool: int) -> dict[str, str]:
    """The workers' environment; ``pool`` > 0: a seed pool of that many entries a variant,
    drawn from once full (filled by ``fill_pool`` first)."""
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "PATHWAYS_VAR_DIR": str(tmp / "var")}
    if warm:
        env["PATHWAYS_GRADER_WARM"] = "1"
    if pool:
        env.update(PATHWAYS_GRADER_SEED_POOL_SIZE=str(pool),
                   PATHWAYS_GRADER_SEED_POOL_MIN=str(pool))
    else:
        env["PATHWAYS_GRADER_SEED_POOL"] = "off"
    return env


def fill_pool(items: list[tuple[str, str, str]], tmp: Path, warm: bool, pool: int) -> float:
    """`pathways seed-pool` for the corpus's exercises, as an operator runs it before a class;
    returns its seconds."""
    exe = Path(sys.executable).with_name("pathways")
    ids = sorted({exercise_id for exercise_id, _, _ in items})
    start = time.time()
    subprocess.run([str(exe), "seed-pool", "--concurrency", "2",
                    *[a for i in ids for a in ("--exercise", i)]],
                   env=worker_env(tmp, warm, pool), check=True, stdout=subprocess.DEVNULL)
    return time.time() - start


def run_config(workers: int, items: list[tuple[str, str, str]], tmp: Path, warm: bool,
               limits: dict, one_at_a_time: bool = False, pool: int = 0,
               gap_s: float = 0.0) -> dict:
    """Grade ``items`` with ``workers`` real workers. A burst (all submitted at once) measures
    throughput, its latencies include waiting in the queue; ``one_at_a_time`` submits the next
    ``gap_s`` after the last is recorded, so a latency is what one learner waits on an idle
    system: a worker that has just finished a job reads the queue again at once, an idle one
    only at its polling interval (SQLite's queue is polled, grader_worker.cli.IDLE_POLL_S)."""
    name = f"{workers}{'-idle' if one_at_a_time else ''}"
    url = f"sqlite:///{tmp / f'bench-{name}.sqlite3'}"
    upgrade(url)
    engine = make_engine(url)
    sessions = make_session_factory(engine)
    placement_id, user_id = _rows(sessions)
    env = {**worker_env(tmp, warm, pool),
           "PATHWAYS_QUEUE_PREFIX": f"bench-{uuid.uuid4().hex[:8]}-"}
    queues = Queues(load_config(env))
    settings = GradingSettings(limits=limits, running_lease_s=60)
    consumer = Consumer(sessions, queues, settings)
    logs = [tmp / f"w{name}-{k}.log" for k in range(workers)]
    procs = _start_workers(env, logs)
    try:
        ids: list[str] = []
        start = time.time()
        deadline = time.time() + 60 + 20 * len(items)

        def submit(batch: list[tuple[str, str, str]]) -> None:
            with sessions() as s:
                placement, user = s.get(Placement, placement_id), s.get(LmsUser, user_id)
                for exercise_id, _kind, source in batch:
                    ids.append(service.submit(s, queues, settings, placement=placement,
                                              user=user, exercise_id=exercise_id,
                                              source=source).id)

        def wait_recorded() -> None:
            while time.time() < deadline:
                consumer.drain()
                with sessions() as s:
                    left = s.scalar(select(Submission.id).where(
                        Submission.status.in_(("queued", "running"))).limit(1))
                if left is None:
                    return
                time.sleep(0.05)

        batches = [[item] for item in items] if one_at_a_time else [items]
        for index, batch in enumerate(batches):
            time.sleep(gap_s if index else 0)
            submit(batch)
            wait_recorded()
        elapsed = time.time() - start
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=60)
    with sessions() as s:
        summary = _summary([s.get(Submission, i) for i in ids], elapsed)
    engine.dispose()
    return {"workers": workers, "one_at_a_time": one_at_a_time, "submissions": len(items),
            **summary}


def _start_workers(env: dict[str, str], logs: list[Path]) -> list[subprocess.Popen[bytes]]:
    """One `pathways worker` a log; returns once every worker has probed its sandbox (the
    steady state the clock starts in)."""
    exe = Path(sys.executable).with_name("pathways")
    procs = []
    for log in logs:
        with log.open("ab") as err:  # the child keeps its own copy of the descriptor
            procs.append(subprocess.Popen([str(exe), "worker"], env=env,
                                          stdout=subprocess.DEVNULL, stderr=err))
    ready_by = time.time() + 180
    while not all(f.exists() and "worker ready" in f.read_text() for f in logs):
        if time.time() > ready_by or any(p.poll() is not None for p in procs):
            for p in procs:
                p.terminate()
            raise SystemExit(f"workers did not start; see {logs}")
        time.sleep(0.2)
    return procs


def _steps(rows: list[Submission]) -> dict[str, float | None]:
    """Medians of where a submission's time went, from its result's timings: waiting for a
    worker (``queued_s``), the sandboxed run(s) (``run_s``), the rest of the worker's grading
    (``checks_s``: reading the report, the checks) and from the worker's result to the
    recorded score (``delivery_s``: the results queue and the consumer)."""
    parts: dict[str, list[float]] = {"queued_s": [], "run_s": [], "checks_s": [],
                                     "delivery_s": []}
    for r in rows:
        timings = (r.result or {}).get("timings") or {}
        if not r.graded_at or not timings.get("total_s"):
            continue
        latency = (r.graded_at - r.created_at).total_seconds()
        parts["queued_s"].append(timings["queued_s"])
        parts["run_s"].append(timings["run_s"])
        parts["checks_s"].append(timings["total_s"] - timings["run_s"])
        parts["delivery_s"].append(latency - timings["queued_s"] - timings["total_s"])
    return {k: round(statistics.median(v), 3) if v else None for k, v in parts.items()}


def _summary(rows: list[Submission], elapsed: float) -> dict:
    """Latencies (submit to recorded score), throughput and outcomes of the graded rows
    (``rows`` in the order submitted: ``latency_by_submission_s`` keeps it)."""
    in_order = [(r.graded_at - r.created_at).total_seconds() if r.graded_at else None
                for r in rows]
    latencies = sorted(x for x in in_order if x is not None)
    outcomes: dict[str, int] = {}
    for r in rows:
        outcomes[r.outcome or r.status] = outcomes.get(r.outcome or r.status, 0) + 1
    return {"recorded": len(latencies), "elapsed_s": round(elapsed, 2),
            "per_minute": round(60 * len(latencies) / elapsed, 1) if elapsed else 0.0,
            "median_s": round(statistics.median(latencies), 3) if latencies else None,
            "p95_s": round(latencies[max(0, round(0.95 * len(latencies)) - 1)], 3)
            if latencies else None,
            "latencies_s": [round(x, 3) for x in latencies], "outcomes": outcomes,
            "latency_by_submission_s": [None if x is None else round(x, 3) for x in in_order],
            "not_gradable": sorted({r.feedback[:300] for r in rows
                                    if r.status == "not_gradable"}),
            "steps": _steps(rows),
            # Which submissions ran out of time, with their CPU: a loop is meant to; anything
            # else was charged for the host (or is slower than its limits allow).
            "timeouts": [[r.exercise_id, r.source.endswith(LOOP),
                          ((r.result or {}).get("timings") or {}).get("run_s")]
                         for r in rows if r.outcome in ("timeout", "host_timeout")]}


def plot(runs: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for run in runs:
        xs = range(1, len(run["latencies_s"]) + 1)
        ax.plot(list(xs), run["latencies_s"], marker="o",
                label=f"{run['workers']} worker(s): median {run['median_s']} s")
    ax.set_xlabel("submission (sorted by latency)")
    ax.set_ylabel("submit → recorded score (s)")
    ax.set_title("Grading latency through the real queue")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=12)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--warm", action="store_true", help="workers use the warm runner")
    parser.add_argument("--idle", type=int, default=4,
                        help="also grade this many (non-timeout) submissions one at a time with "
                             "1 worker: the latency a learner sees on an idle system (0: skip)")
    parser.add_argument("--gap", type=float, default=5.0,
                        help="seconds between one-at-a-time submissions, so that each finds "
                             "the worker idle (0: the next right after the last is recorded)")
    parser.add_argument("--pool", type=int, default=0,
                        help="fill a seed pool of this many entries a variant first (pathways "
                             "seed-pool) and grade from it: one sandboxed run per submission")
    parser.add_argument("--wall-s", type=float, default=20.0,
                        help="wall-clock limit of every run (the looping ones hit it)")
    return parser.parse_args()


def main() -> None:
    args = _args()
    logging.basicConfig(level=logging.WARNING)
    items = corpus(args.submissions)
    limits = {"wall_s": args.wall_s, "cpu_s": 10}
    with tempfile.TemporaryDirectory(prefix="pathways-bench-") as tmp_name:
        tmp = Path(tmp_name)
        load_before = _results.loadavg()
        # A bare run of each one-at-a-time file, and of at least the four the median reads.
        timed = [item for item in items if item[1] != "timeout"][:max(args.idle, 4)]
        bare_each = bare_python_s([source for _, _, source in timed], tmp)
        bare = statistics.median(bare_each[:4])
        filled_s = fill_pool(items, tmp, args.warm, args.pool) if args.pool else None
        runs = [run_config(int(w), items, tmp, args.warm, limits, pool=args.pool)
                for w in args.workers.split(",")]
        gradable = timed[:args.idle]
        idle = run_config(1, gradable, tmp, args.warm, limits, one_at_a_time=True,
                          pool=args.pool, gap_s=args.gap) if gradable else None
    RESULTS.mkdir(parents=True, exist_ok=True)
    line = {**_results.environment(), "loadavg_before": load_before,
            "loadavg_after": _results.loadavg(),
            "queue": "redis" if os.environ.get("REDIS_URL") else "sqlite",
            "warm": args.warm, "pool": args.pool, "gap_s": args.gap,
            "pool_fill_s": None if filled_s is None else round(filled_s, 1),
            "bare_python_median_s": round(bare, 3),
            "mix": {k: sum(1 for _, kind, _ in items if kind == k)
                    for k in ("correct", "wrong", "timeout")},
            "runs": [{**r, "median_over_bare": round(r["median_s"] / bare, 2)
                      if r["median_s"] else None} for r in runs]}
    if idle is not None:
        line["idle"] = {**idle, "median_over_bare": round(idle["median_s"] / bare, 2)
                        if idle["median_s"] else None,
                        **over_own_bare([e for e, _, _ in gradable],
                                        idle["latency_by_submission_s"],
                                        bare_each[:len(gradable)])}
    _results.append(RESULTS / "grading.jsonl", line)
    plot(runs, RESULTS / "grading.png")
    print(f"bare `python main.py` median: {bare:.2f} s   mix: {line['mix']}   "
          f"queue: {line['queue']}   warm: {args.warm}   pool: {args.pool or 'off'}"
          + (f" (filled in {filled_s:.0f} s)" if filled_s is not None else ""))
    print(f"{'workers':>7} {'subs/min':>9} {'median s':>9} {'p95 s':>7} {'median/bare':>12}"
          "  outcomes")
    for r in line["runs"]:
        print(f"{r['workers']:>7} {r['per_minute']:>9} {r['median_s']:>9} {r['p95_s']:>7} "
              f"{r['median_over_bare']:>12}  {r['outcomes']}")
    if idle is not None:
        i = line["idle"]
        print(f"one at a time, 1 worker: median {i['median_s']} s, p95 {i['p95_s']} s, "
              f"median/bare {i['median_over_bare']}; each over a bare run of its own program: "
              f"median {i['median_over_own_bare']} (target <= 1.2; with --warm --pool <= 0.3)")
        print(f"  over own bare run: {i['over_own_bare']}")
    for r in [*line["runs"], *([line["idle"]] if idle is not None else [])]:
        print(f"  {r['workers']} worker(s){' one at a time' if r['one_at_a_time'] else ''}: "
              f"median steps {r['steps']}; timeouts {r['timeouts']}")
    print(f"wrote {RESULTS / 'grading.jsonl'} and {RESULTS / 'grading.png'}")


if __name__ == "__main__":
    main()
