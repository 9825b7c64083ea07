"""The other benches at their smallest, as `make bench` runs them: each must leave one JSON
line with the fields bench/report.py reads, in the scratch results folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_helpers import json_lines

pytestmark = pytest.mark.slow


def test_course_bench_times_a_full_and_a_no_change_build(run_bench, tmp_path: Path) -> None:
    done = run_bench("course_tools.py", "--skip-check", timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    [row] = json_lines(tmp_path / "results" / "course.jsonl")
    assert row["build"]["full_s"] > 0 and row["build"]["no_change_s"] > 0
    assert {"ratio", "no_change_summary"} <= set(row["build"])
    floors = row["floors"]
    assert all(len(floors[f]["runs_s"]) == 3 and floors[f]["median_s"] > 0
               for f in ("start", "load"))
    assert "2 phase(s)" in floors["load"]["course"]
    assert row["build"]["no_change_over_start"] > 0 and row["build"]["full_over_load"] > 1
    assert {"loadavg_before", "loadavg_after", "command", "timestamp"} <= set(row)


def test_grading_bench_grades_through_the_queue(run_bench, tmp_path: Path) -> None:
    done = run_bench("grading.py", "--submissions", "2", "--workers", "1", "--idle", "1",
                     timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    [row] = json_lines(tmp_path / "results" / "grading.jsonl")
    [run] = row["runs"]
    assert run["workers"] == 1 and run["submissions"] == 2
    assert {"per_minute", "median_s", "p95_s", "median_over_bare"} <= set(run)
    assert row["idle"]["one_at_a_time"] and row["idle"]["recorded"] == 1
    assert row["idle"]["median_over_bare"] > 0
