"""Benchmark the course tools: a full and a no-change run of `pathways course check` and of
`pathways course build`, each a real subprocess on a fresh copy of the content.

A no-change run must take under 5% of a full run, for `check` (passes are cached by content
hash + checks hash + package versions, course/tools/check_cache.py) and `build` (it only hashes
inputs and compares keys). `check` gets a cache file of its own in the scratch folder, so the
full run is a cold one.

The floor, measured in the same run on the same copy: `pathways course validate` (the median of
three), which starts the interpreter, imports the CLI and loads and cross-checks every content
file, and runs no lesson code. A no-change `check` or `build` does that much and then compares
hashes, so its ratio over the floor is what the caching itself costs; a full run's ratio is
what running the course costs. Prints the timings and ratios and appends one JSON line to
bench/results/course.jsonl.

    .venv/bin/python bench/course_tools.py [--skip-check]
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


def measure_floor(content: Path) -> dict[str, object]:
    """`pathways course validate` three times: the least any course command costs here."""
    runs = [timed(["course", "validate", "--root", str(content)]) for _ in range(3)]
    seconds = [s for s, _ in runs]
    floor = statistics.median(seconds)
    print(f"floor: `course validate` median {floor:.2f} s of {[round(s, 2) for s in seconds]}"
          f"   ({runs[0][1]})")
    return {"median_s": round(floor, 3), "runs_s": [round(s, 3) for s in seconds],
            "course": runs[0][1]}


def pair(name: str, args: list[str], floor: float) -> dict[str, float | str]:
    full, full_line = timed(args)
    again, again_line = timed(args)
    ratio = again / full
    print(f"{name:>5}: full {full:7.2f} s ({full / floor:5.1f} x floor) | no-change {again:6.2f} s"
          f" ({again / floor:4.2f} x floor) | no-change / full {ratio:6.1%}   ({again_line})")
    return {"full_s": round(full, 3), "no_change_s": round(again, 3), "ratio": round(ratio, 4),
            "full_over_floor": round(full / floor, 2),
            "no_change_over_floor": round(again / floor, 2),
            "full_summary": full_line, "no_change_summary": again_line}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skip-check", action="store_true", help="Time only `build`.")
    args = parser.parse_args()
    record: dict[str, object] = {"bench": "course", **environment(), "loadavg_before": loadavg()}
    with tempfile.TemporaryDirectory(prefix="pathways-bench-course-") as scratch:
        content = Path(scratch) / "content"
        shutil.copytree(CONTENT, content, ignore=shutil.ignore_patterns("__pycache__"))
        record["floor"] = floor = measure_floor(content)
        if not args.skip_check:
            record["check"] = pair("check", ["course", "check", "--root", str(content),
                                             "--cache", str(Path(scratch) / "check.json")],
                                   float(floor["median_s"]))
        out = Path(scratch) / "site"
        record["build"] = build = pair("build", ["course", "build", "--root", str(content),
                                                 "--out", str(out), "--quiet"],
                                       float(floor["median_s"]))
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
