"""Benchmark a lecture hall answering a checkpoint at once: launch + answer under load.

For each database (SQLite, PostgreSQL) and each size N, a fresh database and a fresh gunicorn
(deploy/gunicorn.conf.py, ``--workers`` sync workers, loopback) serve the tool. N simulated
learners, each with its own cookie jar, open the activity from the bench's own LTI platform
(OIDC login, a signed id_token POSTed to the launch, the lesson page) spread over ``--ramp``
seconds, then each answers the checkpoint once at a random moment in ``--window`` seconds
(``--window 0``: all at the same instant). Prints answers/s, p50/p95/p99 latency of the answer
request, errors, and answers recorded in the database against answers sent; appends one JSON
line per (db, N) to bench/results/checkpoint_load.jsonl and redraws checkpoint_load.png.

Each line also carries the floor measured in the same run (``bench/_floor.py``: a minimal Flask
view under the same gunicorn configuration that checks a bearer token and does one INSERT), hit
in the same pattern (N requests in the answer window; three requests a learner over the ramp
for launches), and our figures as multiples of it. ``--launch-only`` (``bench/launch_load.py``)
measures the launches alone.

    .venv/bin/python bench/checkpoint_load.py [--db sqlite|postgres|both] [--sizes 50,200,500]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
# `python bench/x.py` puts bench/ first on sys.path, where a bench module could shadow a project
# package (the editable install's finder comes after sys.path): import the project's packages
# with bench/ off the path, then put it back, last, for the bench helpers.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH]

from sqlalchemy import func, select  # noqa: E402

from lti_service.checkpoints.models import CheckpointAttempt  # noqa: E402
from lti_service.core.db import make_engine, make_session_factory, upgrade  # noqa: E402
from lti_service.core.models import LmsUser  # noqa: E402
from lti_service.lti.service.platforms import add_platform  # noqa: E402
from lti_service.outbox.models import ScoreOutbox  # noqa: E402

sys.path.append(str(BENCH))
import _budget  # noqa: E402
import _floor  # noqa: E402
import _results  # noqa: E402
from _hall import (  # noqa: E402
    LEARNER_PREFIX,
    Tally,
    drive,
    drive_floor,
)
from _platform import BenchPlatform  # noqa: E402
from _server import BenchSetupError, fresh_database, start_gunicorn  # noqa: E402

log = logging.getLogger("bench.checkpoint_load")
JSONL = _results.RESULTS / "checkpoint_load.jsonl"
PLOT = _results.RESULTS / "checkpoint_load.png"


def measure_floor(url: str, tmp: Path, n: int,
                  args: argparse.Namespace) -> dict[str, Any]:
    """The floor in this run's two patterns (see the module docstring), on the same database."""
    _floor.prepare(url)
    server = start_gunicorn(url, tmp, args.workers, app="bench._floor:app",
                            ready_path="/floor")
    loop = asyncio.new_event_loop()
    try:
        floor: dict[str, Any] = {"launch": loop.run_until_complete(drive_floor(
            server.url, server.secret, [random.uniform(0, args.ramp) for _ in range(n)], 3,
            server.cpu_s))}
        if not args.launch_only:
            floor["answer"] = loop.run_until_complete(drive_floor(
                server.url, server.secret,
                [random.uniform(0, args.window) if args.window else 0.0 for _ in range(n)], 1,
                server.cpu_s))
    finally:
        loop.close()
        server.stop()
    floor["recorded"] = _floor.count(url)
    floor["sent"] = 3 * n + (0 if args.launch_only else n)
    return floor


def _ratio(ours: float | None, floor: float | None) -> float | None:
    return round(ours / floor, 2) if ours and floor else None


def over_floor(row: dict[str, Any]) -> dict[str, Any]:
    """Our figures as multiples of the floor's (latency: ours / floor; throughput: floor /
    ours, so 1.0 is "as fast as the floor" either way)."""
    floor = row["floor"]
    out = {"launch_p95": _ratio(row["launch"]["p95_ms"], floor["launch"]["p95_ms"]),
           "launch_p99": _ratio(row["launch"]["p99_ms"], floor["launch"]["p99_ms"])}
    if "answer" in floor:
        out.update({
            "answer_p50": _ratio(row["answer"]["p50_ms"], floor["answer"]["p50_ms"]),
            "answer_p99": _ratio(row["answer"]["p99_ms"], floor["answer"]["p99_ms"]),
            "answer_throughput": _ratio(floor["answer"]["per_s"], row["answers_per_s"])})
    return out


def recorded(database_url: str) -> tuple[int, int]:
    """(checkpoint attempts, checkpoint score-outbox rows) of the measured learners."""
    engine = make_engine(database_url)
    learners = select(LmsUser.id).where(LmsUser.sub.like(LEARNER_PREFIX + "%"))
    try:
        with make_session_factory(engine)() as s:
            attempts = s.scalar(select(func.count()).select_from(CheckpointAttempt)
                                .where(CheckpointAttempt.user_id.in_(learners))) or 0
            outbox = s.scalar(select(func.count()).select_from(ScoreOutbox)
                              .where(ScoreOutbox.source.like("checkpoint:%"),
                                     ScoreOutbox.user_id.in_(learners))) or 0
    finally:
        engine.dispose()
    return attempts, outbox


async def _measure(tool: str, lms: BenchPlatform, n: int, args: argparse.Namespace,
                   cpu: Any) -> Tally:
    try:
        return await drive(tool, lms, n, args, cpu)
    finally:
        await lms.stop()


def _row(kind: str, n: int, args: argparse.Namespace, tally: Tally,
         jwks_fetches: int) -> dict[str, Any]:
    """The run's figures from its tally: answers, latencies, and the service's CPU per step."""
    launch_cpu, answer_cpu = (
        (tally.cpu_s[1] - tally.cpu_s[0], tally.cpu_s[2] - tally.cpu_s[1])
        if len(tally.cpu_s) == 3 else (None, None))
    first = min((s for s, _ in tally.answer_times), default=0.0)
    last = max((d for _, d in tally.answer_times), default=0.0)
    span = last - first
    return {
        "bench": "launch_load" if args.launch_only else "checkpoint_load", "db": kind,
        "learners": n, "workers": args.workers,
        "ramp_s": args.ramp, "window_s": args.window,
        "answers_sent": tally.answers_sent, "answers_ok": tally.answers_ok,
        "errors": sum(tally.errors.values()), "errors_by_step": tally.errors,
        "error_samples": tally.error_samples,
        "answers_per_s": round(tally.answers_ok / span, 1) if span > 0 else None,
        "requests": tally.requests, "requests_per_s": round(tally.requests / tally.phase_s, 1),
        "phase_s": round(tally.phase_s, 1),
        "answer": _results.percentiles_ms(tally.answer_s),
        "launch": _results.percentiles_ms(tally.launch_s),
        "jwks_fetches": jwks_fetches,
        # Service CPU (gunicorn master + workers) per launch (3 requests) and per answer.
        "cpu_ms_per_launch": round(1000 * launch_cpu / len(tally.launch_s), 2)
        if launch_cpu is not None and tally.launch_s else None,
        "cpu_ms_per_answer": round(1000 * answer_cpu / tally.answers_ok, 2)
        if answer_cpu is not None and tally.answers_ok else None,
    }


def run_one(kind: str, n: int, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="pw-bench-") as tmp_name:
        tmp = Path(tmp_name)
        with fresh_database(kind, tmp) as url:
            upgrade(url)
            loop = asyncio.new_event_loop()
            try:
                lms = loop.run_until_complete(BenchPlatform().start())
                engine = make_engine(url)
                with make_session_factory(engine)() as s:
                    add_platform(s, **lms.registration())
                    s.commit()
                engine.dispose()
                server = start_gunicorn(url, tmp, args.workers)
                load_before = _results.loadavg()
                started = time.perf_counter()
                try:
                    tally = loop.run_until_complete(_measure(server.url, lms, n, args,
                                                             server.cpu_s))
                finally:
                    wall = time.perf_counter() - started
                    server.stop()
            finally:
                loop.close()
            attempts, outbox = recorded(url)
            if server.process.returncode not in (0, -15):
                log.warning("gunicorn exited %s: %s", server.process.returncode,
                            server.log_path.read_text()[-1000:])
            floor = measure_floor(url, tmp, n, args)
    row = {**_row(kind, n, args, tally, lms.jwks_fetches), "answers_recorded": attempts,
           "scores_queued": outbox, "lost": tally.answers_ok - attempts,
           "wall_s": round(wall, 1), "loadavg_before": load_before,
           "loadavg_after": _results.loadavg(), "floor": floor, **_results.environment()}
    row["over_floor"] = over_floor(row)
    row["cpu_over_floor"] = _budget.cpu_over_floor(row)
    row["targets"] = _budget.targets(row)
    return row


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    """Answer latency (p50, p99) against learners: one colour per database, one series per
    answer window (the latest line for each point)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    latest: dict[tuple[str, float, int], dict[str, Any]] = {}
    for row in rows:
        if row["answer"]["p99_ms"]:
            latest[(row["db"], row.get("window_s", 0.0), row["learners"])] = row
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    colours = {"postgres": "tab:blue", "sqlite": "tab:orange"}
    for db, window in sorted({(d, w) for d, w, _ in latest}):
        points = sorted((n, r) for (d, w, n), r in latest.items() if (d, w) == (db, window))
        xs = [n for n, _ in points]
        spread = "all at once" if not window else f"over {window:g} s"
        for key, style in (("p50_ms", ":"), ("p99_ms", "-")):
            ax.plot(xs, [r["answer"][key] for _, r in points], style, marker="o",
                    color=colours.get(db, "tab:green"), alpha=1.0 if window else 0.45,
                    label=f"{db} {key[:3]}, answers {spread}")
    ax.axhline(100, color="grey", linewidth=0.8)
    ax.annotate("target p99 100 ms", (0.01, 100), xycoords=("axes fraction", "data"),
                fontsize=8, color="grey", va="bottom")
    ax.set_yscale("log")
    ax.set_xlabel("concurrent learners")
    ax.set_ylabel("checkpoint answer latency (ms, log)")
    ax.set_title("Checkpoint answers under load (gunicorn, 2 workers, loopback)")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def show(row: dict[str, Any]) -> str:
    a, launch, floor, x = row["answer"], row["launch"], row["floor"], row["over_floor"]
    fl = floor["launch"]
    text = (f"{row['db']:8} N={row['learners']:4}  errors {row['errors']}  launch p50 "
            f"{launch['p50_ms']} p95 {launch['p95_ms']} p99 {launch['p99_ms']} ms (floor, 3 "
            f"requests: p95 {fl['p95_ms']} p99 {fl['p99_ms']} ms; x{x['launch_p95']} at p95); "
            f"service CPU {row['cpu_ms_per_launch']} ms a launch (floor "
            f"{fl['cpu_ms_per_request']} ms a request)")
    if "answer" in floor:
        fa = floor["answer"]
        text += (f"\n{'':8} answers {row['answers_ok']}/{row['answers_sent']} ok, recorded "
                 f"{row['answers_recorded']}: {row['answers_per_s']} answers/s (floor "
                 f"{fa['per_s']}/s, x{x['answer_throughput']})  answer p50 {a['p50_ms']} p95 "
                 f"{a['p95_ms']} p99 {a['p99_ms']} ms (floor p50 {fa['p50_ms']} p99 "
                 f"{fa['p99_ms']} ms; x{x['answer_p50']} at p50); service CPU "
                 f"{row['cpu_ms_per_answer']} ms an answer (floor {fa['cpu_ms_per_request']} ms)")
    text += (f"\n{'':8} floor recorded {floor['recorded']}/{floor['sent']}; load "
             f"{row['loadavg_before'][0]}->{row['loadavg_after'][0]}")
    return text + "\n" + _budget.show(row)


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--db", choices=["sqlite", "postgres", "both"], default="both")
    p.add_argument("--sizes", default="50,200,500",
                   help="comma-separated numbers of concurrent learners")
    p.add_argument("--workers", type=int, default=2, help="gunicorn sync workers (2 cores)")
    p.add_argument("--ramp", type=float, default=5.0,
                   help="seconds over which the learners launch")
    p.add_argument("--window", type=float, default=10.0,
                   help="seconds over which the answers arrive, once all have launched "
                   "(0: all at the same instant)")
    p.add_argument("--max-seconds", type=float, default=180.0,
                   help="stop a run that has not finished after this long")
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--results", type=Path, default=JSONL)
    p.add_argument("--launch-only", action="store_true",
                   help="launches only, no answers (bench/launch_load.py)")
    p.add_argument("--gate-latency", action="store_true",
                   help="fail on missed latency and throughput targets too (the CPU budget "
                   "always fails a run; see bench/_budget.py)")
    args = p.parse_args(argv)
    try:
        args.size_list = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        p.error(f"--sizes {args.sizes!r}: give whole numbers separated by commas, e.g. 50,200")
    if not args.size_list or min(args.size_list) < 1:
        p.error("--sizes: every size must be at least 1")
    if args.workers < 2:
        p.error("--workers: at least 2, so requests really run side by side")
    if args.ramp < 0 or args.window < 0 or args.max_seconds <= 0:
        p.error("--ramp and --window must be >= 0, --max-seconds > 0")
    return args


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    for quiet in ("alembic", "lti_service"):  # migrations of every fresh database
        logging.getLogger(quiet).setLevel(logging.WARNING)
    args = parse(argv)
    random.seed(args.seed)
    kinds = ["sqlite", "postgres"] if args.db == "both" else [args.db]
    failed = False
    for kind in kinds:
        for n in args.size_list:
            try:
                row = run_one(kind, n, args)
            except BenchSetupError as exc:
                log.error("checkpoint_load %s N=%d: %s", kind, n, exc)
                return 2
            _results.append(args.results, row)
            log.info("%s", show(row))
            floor = row["floor"]
            failed |= bool(row["errors"] or row["lost"] or floor["recorded"] != floor["sent"])
            over = _budget.missed(row, gate_latency=args.gate_latency)
            if over:
                log.error("%s N=%d missed: %s", kind, n, "; ".join(over))
                failed = True
    if args.launch_only:
        log.info("wrote %s", args.results)
        return 1 if failed else 0
    plot(_results.read(args.results), args.results.with_suffix(".png"))
    log.info("wrote %s and %s", args.results, args.results.with_suffix(".png"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
