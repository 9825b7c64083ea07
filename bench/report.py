"""Write the README's "## Latest benchmark figures" section from bench/results/*.jsonl.

Only that section changes (it runs to the next "## " heading or the end of the file); the rest
of the README is left byte for byte. Each table shows the latest line per configuration, with
its date, the load average it ran under (the machine is shared) and the command that made it.

    .venv/bin/python bench/report.py [--readme README.md] [--check]
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH] + [str(BENCH)]

import _budget  # noqa: E402
import _results  # noqa: E402

log = logging.getLogger("bench.report")
ROOT = BENCH.parent
HEADING = "## Latest benchmark figures"


class ReportError(Exception):
    """The README or a results file is not as the report expects; the message says how."""


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 100 else f"{value:.0f}"
    return str(value)


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    out += ["| " + " | ".join(_fmt(v) for v in row) + " |" for row in rows]
    return out


def _load(row: dict[str, Any]) -> str:
    before, after = row.get("loadavg_before"), row.get("loadavg_after")
    if before and after:
        return f"{before[0]:.1f}→{after[0]:.1f}"
    return _fmt((before or after or [None])[0])


# Scripts renamed since some rows were recorded: the README shows the command that runs today.
RENAMED = {"bench/course.py": "bench/course_tools.py"}


def _current(command: str) -> str:
    for old, new in RENAMED.items():
        command = command.replace(old, new)
    return command


def _commands(rows: list[dict[str, Any]], script: str) -> list[str]:
    seen = sorted({_current(r.get("command") or f"python bench/{script} (arguments not recorded)")
                   for r in rows})
    return ["", "Produced by: " + "; ".join(f"`{c}`" for c in seen)]


def _floor(row: dict[str, Any], phase: str, key: str) -> Any:
    return (row.get("floor") or {}).get(phase, {}).get(key)


def _x(row: dict[str, Any], key: str) -> Any:
    return (row.get("over_floor") or {}).get(key)


def _cpu_x(row: dict[str, Any], phase: str) -> Any:
    """Service CPU over the floor's (``bench/_budget.py``; older lines lack some figures)."""
    try:
        return _budget.cpu_over_floor(row).get(phase)
    except (KeyError, TypeError):
        return None


def checkpoint_section(rows: list[dict[str, Any]]) -> list[str]:
    latest: dict[tuple[str, int, float], dict[str, Any]] = {}
    for row in rows:
        latest[(row["db"], row["learners"], row.get("window_s", 0.0))] = row
    ordered = [latest[k] for k in sorted(latest, key=lambda k: (k[0] != "postgres", k[1], k[2]))]
    body = [[r["db"], r["learners"], r["workers"], r.get("window_s"),
             f"{r['answers_ok']}/{r['answers_sent']}", r["answers_recorded"], r["errors"],
             r.get("answers_per_s"), _floor(r, "answer", "per_s"), r["answer"]["p50_ms"],
             r["answer"]["p99_ms"], _floor(r, "answer", "p50_ms"), _floor(r, "answer", "p99_ms"),
             _x(r, "answer_throughput"), _x(r, "answer_p50"), r.get("cpu_ms_per_answer"),
             _floor(r, "answer", "cpu_ms_per_request"), _cpu_x(r, "answer"), _load(r),
             r["timestamp"][:16]]
            for r in ordered]
    lines = ["### Checkpoint answers under load (`bench/checkpoint_load.py`)", "",
             "Targets: answers over 10 s: p99 under 100 ms at 200 learners on PostgreSQL, SQLite "
             "within 2x; all at one instant (`--window 0`): at least 300 answers/s on both "
             "databases, p99 at 200 under 1 s; no error, recorded = sent; our answer within 2x "
             "of the floor (a minimal view under the same gunicorn: bearer token check + one "
             "INSERT, measured in the same run with the same pattern). \"x floor\": floor "
             "answers/s over ours, our p50 over the floor's.", ""]
    lines += _table(["db", "learners", "workers", "window s", "answers ok/sent", "recorded",
                     "errors", "answers/s", "floor /s", "p50 ms", "p99 ms", "floor p50",
                     "floor p99", "x floor /s", "x floor p50", "cpu ms / answer",
                     "floor cpu ms", f"x floor cpu (≤ {_budget.CPU_ANSWER_OVER_FLOOR:g})",
                     "load avg", "when (UTC)"], body)
    lines += _commands(ordered, "checkpoint_load.py")
    lines += ["", *_checkpoint_verdict(latest)]
    lines += ["", "![answer latency against learners](bench/results/checkpoint_load.png)"]
    return lines


def _met(ok: bool) -> str:
    return "met" if ok else "MISSED"


def _checkpoint_verdict(latest: dict[tuple[str, int, float], dict[str, Any]]) -> list[str]:
    """Say, from the figures themselves, whether the issue's targets were met."""
    def at_200(db: str, spread: bool) -> dict[str, Any] | None:
        hits = [r for (d, n, w), r in latest.items() if d == db and n == 200 and bool(w) == spread]
        return max(hits, key=lambda r: r["timestamp"]) if hits else None

    out: list[str] = []
    pg, lite = at_200("postgres", True), at_200("sqlite", True)
    if pg is not None and lite is not None:
        pg99, lite99 = pg["answer"]["p99_ms"], lite["answer"]["p99_ms"]
        clean = not (pg["errors"] or pg["lost"] or lite["errors"] or lite["lost"])
        ratio = lite99 / pg99 if pg99 else float("inf")
        out += [f"Answers over {pg.get('window_s'):g} s at 200 learners: PostgreSQL p99 "
                f"{pg99:.0f} ms ({_met(pg99 < 100)}), errors and losses "
                f"{'none (met)' if clean else 'SOME (MISSED)'}, SQLite p99 {lite99:.0f} ms = "
                f"{ratio:.2f}x PostgreSQL ({_met(ratio <= 2)}); load average "
                f"{_load(pg)} / {_load(lite)}.", ""]
    for r in (at_200("postgres", False), at_200("sqlite", False)):
        if r is None:
            continue
        rate, p99 = r.get("answers_per_s") or 0.0, r["answer"]["p99_ms"] or float("inf")
        x_rate, x_p50 = _x(r, "answer_throughput"), _x(r, "answer_p50")
        clean = not (r["errors"] or r["lost"])
        out += [f"All 200 answers at one instant on {r['db']}: {rate} answers/s "
                f"({_met(rate >= 300)}), p99 {p99:.0f} ms ({_met(p99 < 1000)}), recorded = sent "
                f"{_met(clean)}; floor {_floor(r, 'answer', 'per_s')}/s, ours x{x_rate} of it "
                f"in throughput and x{x_p50} at p50 (goal 1.5x in throughput: "
                f"{_met(bool(x_rate and x_rate <= 1.5))}); load {_load(r)}.", ""]
    if not out:
        return ["Targets: not judged (run both databases at 200 learners)."]
    return out + ["Where the time goes and what would close a gap: "
                  "[bench/README.md](bench/README.md#the-latest-runs-and-where-the-time-goes)."]


def launch_section(rows: list[dict[str, Any]]) -> list[str]:
    latest: dict[tuple[str, int, float], dict[str, Any]] = {}
    for row in rows:
        latest[(row["db"], row["learners"], row.get("ramp_s", 0.0))] = row
    ordered = [latest[k] for k in sorted(latest, key=lambda k: (k[0] != "postgres", k[1], k[2]))]
    body = [[r["db"], r["learners"], r["workers"], r.get("ramp_s"), r["errors"],
             r["launch"]["p50_ms"], r["launch"]["p95_ms"], r["launch"]["p99_ms"],
             _floor(r, "launch", "p95_ms"), _floor(r, "launch", "p99_ms"), _x(r, "launch_p95"),
             r.get("cpu_ms_per_launch"), _floor(r, "launch", "cpu_ms_per_request"),
             _cpu_x(r, "launch"), r.get("jwks_fetches"), _load(r), r["timestamp"][:16]]
            for r in ordered]
    lines = ["### Launches of a lecture hall (`bench/launch_load.py`)", "",
             "Targets: OIDC login + signed id_token + lesson page, 200 learners within 5 s: p95 "
             "under 250 ms, p99 under 400 ms, no error; 500 within 5 s: p99 under 1 s. Floor: "
             "three floor requests a learner in the same pattern.", ""]
    lines += _table(["db", "learners", "workers", "ramp s", "errors", "p50 ms", "p95 ms",
                     "p99 ms", "floor p95", "floor p99", "x floor p95", "cpu ms / launch",
                     "floor cpu ms / request",
                     f"x floor's 3 (≤ {_budget.CPU_LAUNCH_OVER_FLOOR:g})", "key-set fetches",
                     "load avg", "when (UTC)"], body)
    lines += _commands(ordered, "launch_load.py")
    verdict = []
    for r in ordered:
        p95, p99 = r["launch"]["p95_ms"] or float("inf"), r["launch"]["p99_ms"] or float("inf")
        if r["learners"] == 200:
            verdict.append(f"{r['db']} 200: p95 {p95:.0f} ms ({_met(p95 < 250)}), p99 "
                           f"{p99:.0f} ms ({_met(p99 < 400)}), errors {r['errors']}")
        elif r["learners"] == 500:
            verdict.append(f"{r['db']} 500: p99 {p99:.0f} ms ({_met(p99 < 1000)}), errors "
                           f"{r['errors']}")
    if verdict:
        lines += ["", "Targets: " + "; ".join(verdict) + "."]
    return lines


def grading_section(rows: list[dict[str, Any]]) -> list[str]:
    # The latest cold run and the latest warm run (the runner modes are measured separately).
    latest = {bool(r.get("warm")): r for r in rows}
    lines: list[str] = []
    for warm in sorted(latest):
        lines += _grading_run(latest[warm]) + [""]
    return lines[:-1] + ["", "![grading time distribution](bench/results/grading.png)"]


def _grading_run(row: dict[str, Any]) -> list[str]:
    body = [[r.get("workers"), r.get("submissions"), r.get("recorded"), r.get("per_minute"),
             r.get("median_s"), r.get("p95_s"), row.get("bare_python_median_s"),
             r.get("median_over_bare")] for r in row.get("runs", [])]
    mode = "warm runner" if row.get("warm") else "cold runs"
    lines = [f"### Grading, {mode} (`bench/grading.py`)", "",
             f"Queue {row.get('queue', '?')}, warm runner {row.get('warm', '?')}, seed pool "
             f"{row.get('pool') or 'off'}, mix "
             f"{row.get('mix', '?')}, {_fmt(row.get('ts') or row.get('timestamp'))[:16]} UTC, "
             f"load {_load(row)}. Target: median submit-to-score ≤ 1.2x a bare cold "
             "`python main.py`.", ""]
    lines += _table(["workers", "submissions", "recorded", "per minute", "median s", "p95 s",
                     "bare python s", "median / bare"], body)
    idle = row.get("idle")
    if idle:
        gap = row.get("gap_s")
        when = (f"{gap:g} s after the last was recorded, the worker idle" if gap
                else "submitted when the last was recorded")
        lines += ["", f"One at a time (1 worker, {idle.get('recorded')} submissions, each "
                  f"{when}): median {idle.get('median_s')} s, "
                  f"p95 {idle.get('p95_s')} s, median / bare {idle.get('median_over_bare')}"
                  + (f"; each over a bare run of its own program, median "
                     f"{idle['median_over_own_bare']} (the target's figure)"
                     if idle.get("median_over_own_bare") is not None else
                     " (the target's figure)")
                  + "; the burst rows above include waiting in the queue."]
    lines += _commands([row], "grading.py")
    return lines


def _floors(row: dict[str, Any], tool: str) -> list[Any]:
    """start s, load s, full / load, no-change / start (lines before the floors: "–")."""
    floors = row.get("floors") or {}
    start = (floors.get("start") or {}).get("median_s")
    load = (floors.get("load") or row.get("floor") or {}).get("median_s")
    timed = row[tool]
    return [start, load, timed.get("full_over_load", timed.get("full_over_floor")),
            timed.get("no_change_over_start")]


def course_section(rows: list[dict[str, Any]]) -> list[str]:
    # `make bench` skips the slow `check`: show each tool's latest line that timed it.
    latest = {tool: next((r for r in reversed(rows) if isinstance(r.get(tool), dict)), None)
              for tool in ("check", "build")}
    used = [r for r in latest.values() if r is not None]
    body = [[tool, r[tool].get("full_s"), r[tool].get("no_change_s"),
             f"{100 * float(r[tool].get('ratio', 0)):.1f}%", *_floors(r, tool), _load(r),
             _fmt(r.get("timestamp"))[:16]]
            for tool, r in latest.items() if r is not None]
    lines = ["### Course tools (`bench/course_tools.py`)", "",
             "Target: a no-change run under 5% of a full run, for `check` (cached passes) and "
             "for `build`. Floors, measured in the same run: start = `pathways course --help`, "
             "load = `pathways course validate` (every content file loaded, no lesson code "
             "run).", ""]
    lines += _table(["tool", "full s", "no-change s", "no-change / full", "start s", "load s",
                     "full / load", "no-change / start", "load avg", "when (UTC)"], body)
    lines += _commands(used, "course_tools.py")
    return lines


def cpu_section(rows: list[dict[str, Any]]) -> list[str]:
    latest = {r["db"]: r for r in rows}
    body = [[r["db"], r["learners"], *(r["cpu_ms_per_step"][s]
                                        for s in ("login", "launch", "page", "answer")),
             r["floor_cpu_ms_per_request"], r["launch_over_floor"], r["answer_over_floor"],
             _load(r), r["timestamp"][:16]] for _, r in sorted(latest.items())]
    lines = ["### Which step costs what CPU (`bench/cpu_budget.py`, in-process)", "",
             "Each step's CPU per request in one process (Flask test client, no gunicorn, no "
             "HTTP), beside the floor's through the same client. The gate is the gunicorn "
             "figure in the two tables above (service CPU per launch within "
             f"{_budget.CPU_LAUNCH_OVER_FLOOR:g}x the floor's three requests, per answer within "
             f"{_budget.CPU_ANSWER_OVER_FLOOR:g}x the floor's one); these in-process ratios "
             "leave out what both sides pay for HTTP and read stricter.", ""]
    lines += _table(["db", "learners", "login ms", "id_token ms", "page ms", "answer ms",
                     "floor ms", "launch / floor's 3", "answer / floor", "load avg",
                     "when (UTC)"], body)
    lines += _commands(list(latest.values()), "cpu_budget.py")
    return lines


SECTIONS = {"launch_load": launch_section, "checkpoint_load": checkpoint_section,
            "cpu_budget": cpu_section, "grading": grading_section,
            "course": course_section}


def section(results: Path) -> str:
    lines = [HEADING, "",
             "Written by `bench/report.py` from `bench/results/*.jsonl` (`make bench` runs every "
             "bench, then this). Machine: a shared 2-core VM; the load average is "
             "the 1-minute figure before→after each run, and other engineers' jobs were part "
             "of it, so read the latencies with it.", ""]
    found = False
    for name, render in SECTIONS.items():
        path = results / f"{name}.jsonl"
        try:
            rows = _results.read(path)
        except ValueError as exc:
            raise ReportError(str(exc)) from exc
        if not rows:
            lines += [f"### `bench/{name}.py`", "",
                      f"No results yet: run `python bench/{name}.py`.", ""]
            continue
        try:
            lines += render(rows) + [""]
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            raise ReportError(f"{path}: a line lacks the fields the report reads ({exc!r}): "
                              "re-run that bench, or delete lines older than its format") from exc
        found = True
    if not found:
        lines += ["(no results in bench/results/ yet: run `make bench`)", ""]
    return "\n".join(lines).rstrip() + "\n"


def replace_section(readme: str, new_section: str) -> str:
    start = readme.find("\n" + HEADING + "\n")
    if start < 0:
        raise ReportError(f"README has no line {HEADING!r}: add it (at the end) and re-run")
    start += 1
    end = readme.find("\n## ", start + len(HEADING))
    tail = readme[end + 1:] if end >= 0 else ""
    return readme[:start] + new_section + ("\n" + tail if tail else "")


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--readme", type=Path, default=ROOT / "README.md")
    p.add_argument("--results", type=Path, default=_results.RESULTS)
    p.add_argument("--check", action="store_true",
                   help="only say whether the README is up to date (exit 1 if not)")
    args = p.parse_args(argv)
    try:
        old = args.readme.read_text()
        new = replace_section(old, section(args.results))
    except (OSError, ReportError) as exc:
        log.error("bench/report.py: %s", exc)
        return 2
    if args.check:
        log.info("README figures are %s", "up to date" if new == old else "out of date")
        return 0 if new == old else 1
    if new != old:
        args.readme.write_text(new)
    log.info("updated %s (%s)", args.readme, HEADING)
    return 0


if __name__ == "__main__":
    sys.exit(main())
