"""Benchmark the course tools: a full and a no-change run of `pathways course check` and of
`pathways course build`, each a real subprocess on a fresh copy of the content.

A no-change run must take under 5% of a full run, for `check` (passes are cached by content
hash + checks hash + package versions, course/tools/check_cache.py) and `build` (it only hashes
inputs and compares keys). `check` gets a cache file of its own in the scratch folder, so the
full run is a cold one.

Two floors, measured in the same run on the same copy (each the median of three):
`start`, `pathways course --help` (the interpreter and the CLI, nothing loaded), and `load`,
`pathways course validate` (every content file loaded and cross-checked, no lesson code run).
A no-change run's ratio over `start` is what its fast path costs above starting at all (under
1 means it skips imports that `--help` pays for); a full run's ratio over `load` is what running
or building the course costs above reading it. Prints the timings and ratios and appends one
JSON line to bench/results/course.jsonl.

    .venv/bin/python bench/course_tools.py [--skip-check] [--content DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import RESULTS, append, environment, loadavg  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "course" / "content"
PATHWAYS = str(Path(sys.executable).parent / "pathways")
LIMIT = 0.05


def timed(args: list[str]) -> tuple[float, str]:
    """Wall seconds of one `pathways` subprocess; a failure stops the benchmark loudly."""
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    start = time.perf_counter()
    done = subprocess.run([PATHWAYS, *args], env=env, capture_output=True, text=True,
                          timeout=3600)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"`pathways {' '.join(args)}` failed ({done.returncode}):\n{done.stderr[-2000:]}")
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    return seconds, last


FLOORS = {"start": ["course", "--help"], "load": ["course", "validate"]}


def measure_floors(content: Path) -> dict[str, dict[str, object]]:
    """Each floor command three times on ``content``; its median is the figure."""
    floors: dict[str, dict[str, object]] = {}
    for name, command in FLOORS.items():
        args = [*command, "--root", str(content)] if name == "load" else command
        runs = [timed(args) for _ in range(3)]
        seconds = [s for s, _ in runs]
        median = statistics.median(seconds)
        print(f"floor {name:>5}: `pathways {' '.join(command)}` median {median:.2f} s of "
              f"{[round(s, 2) for s in seconds]}")
        floors[name] = {"median_s": round(median, 3), "runs_s": [round(s, 3) for s in seconds],
                        "command": "pathways " + " ".join(command)}
    floors["load"]["course"] = timed(["course", "validate", "--root", str(content)])[1]
    return floors


def pair(name: str, args: list[str], start: float, load: float) -> dict[str, float | str]:
    full, full_line = timed(args)
    again, again_line = timed(args)
    ratio = again / full
    print(f"{name:>5}: full {full:7.2f} s ({full / load:6.1f} x load) | no-change {again:5.2f} s"
          f" ({again / start:4.2f} x start) | no-change / full {ratio:6.1%}   ({again_line})")
    return {"full_s": round(full, 3), "no_change_s": round(again, 3), "ratio": round(ratio, 4),
            "full_over_load": round(full / load, 2),
            "no_change_over_start": round(again / start, 2),
            "full_summary": full_line, "no_change_summary": again_line}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skip-check", action="store_true", help="Time only `build`.")
    parser.add_argument("--content", type=Path, default=CONTENT,
                        help="Content root to copy and time (default: the packaged course).")
    args = parser.parse_args()
    record: dict[str, object] = {"bench": "course", **environment(), "loadavg_before": loadavg()}
    with tempfile.TemporaryDirectory(prefix="pathways-bench-course-") as scratch:
        content = Path(scratch) / "content"
        shutil.copytree(args.content, content, ignore=shutil.ignore_patterns("__pycache__"))
        record["content"] = "packaged" if args.content == CONTENT else str(args.content)
        record["floors"] = floors = measure_floors(content)
        start, load = (float(floors[f]["median_s"]) for f in ("start", "load"))  # type: ignore[arg-type]
        if not args.skip_check:
            record["check"] = pair("check", ["course", "check", "--root", str(content),
                                             "--cache", str(Path(scratch) / "check.json")],
                                   start, load)
        out = Path(scratch) / "site"
        record["build"] = build = pair("build", ["course", "build", "--root", str(content),
                                                 "--out", str(out), "--quiet"], start, load)
    record["loadavg_after"] = loadavg()
    record["build_ratio_ok"] = ok = float(build["ratio"]) < LIMIT
    check = record.get("check")
    if isinstance(check, dict):
        record["check_ratio_ok"] = check_ok = float(check["ratio"]) < LIMIT
        ok = ok and check_ok
        print(f"no-change check / full check = {float(check['ratio']):.1%} "
              f"({'under' if check_ok else 'NOT under'} {LIMIT:.0%})")
    append(RESULTS / "course.jsonl", record)
    print(f"no-change build / full build = {float(build['ratio']):.1%} "
          f"({'under' if record['build_ratio_ok'] else 'NOT under'} {LIMIT:.0%}); appended to "
          f"{RESULTS / 'course.jsonl'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
