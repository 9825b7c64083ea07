"""The other benches at their smallest, as `make bench` runs them: each must leave one JSON
line with the fields bench/report.py reads, in the scratch results folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from bench_helpers import json_lines

from course import CONTENT_ROOT

pytestmark = pytest.mark.slow


def _one_lesson_course(tmp_path: Path) -> Path:
    """Phase 01 with its first lesson and its project: the bench's mechanics on a course that
    builds in seconds (the whole course is built by tests/course/test_build.py already)."""
    root = tmp_path / "one-lesson"
    course_yaml = (CONTENT_ROOT / "course.yaml").read_text(encoding="utf-8")
    phases = course_yaml.index("phases:")
    phase = root / "phases" / "01-arrays"
    phase.mkdir(parents=True)
    (root / "course.yaml").write_text(course_yaml[:phases] + "phases:\n  - 01-arrays\n",
                                      encoding="utf-8")
    shutil.copy(CONTENT_ROOT / "phases/01-arrays/phase.yaml", phase / "phase.yaml")
    first = sorted(p for p in (CONTENT_ROOT / "phases/01-arrays").iterdir() if p.is_dir())[0]
    shutil.copytree(first, phase / first.name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(CONTENT_ROOT / "projects", root / "projects",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return root


def test_course_bench_times_a_full_and_a_no_change_build(run_bench, tmp_path: Path) -> None:
    content = _one_lesson_course(tmp_path)
    done = run_bench("course_tools.py", "--skip-check", "--content", str(content), timeout=900)
    # On one lesson the fixed start-up cost may keep no-change above 5% of full: exit 1 then,
    # and the line says so. Anything else (a crash, no line) fails here.
    assert done.returncode in (0, 1), done.stdout[-2000:] + done.stderr[-2000:]
    [row] = json_lines(tmp_path / "results" / "course.jsonl")
    assert row["build_ratio_ok"] == (row["build"]["ratio"] < 0.05) == (done.returncode == 0)
    assert row["build"]["full_s"] > 0 and row["build"]["no_change_s"] > 0
    assert {"ratio", "no_change_summary"} <= set(row["build"])
    floors = row["floors"]
    assert all(len(floors[f]["runs_s"]) == 3 and floors[f]["median_s"] > 0
               for f in ("start", "load"))
    assert "1 phase(s), 1 lesson(s)" in floors["load"]["course"]
    assert row["build"]["no_change_over_start"] > 0 and row["build"]["full_over_load"] > 1
    assert {"loadavg_before", "loadavg_after", "command", "timestamp"} <= set(row)
    assert row["content"] == str(content)


def test_grading_bench_grades_through_the_queue(run_bench, tmp_path: Path) -> None:
    done = run_bench("grading.py", "--submissions", "2", "--workers", "1", "--idle", "1",
                     "--pool", "1", timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    [row] = json_lines(tmp_path / "results" / "grading.jsonl")
    [run] = row["runs"]
    assert run["workers"] == 1 and run["submissions"] == 2
    assert {"per_minute", "median_s", "p95_s", "median_over_bare"} <= set(run)
    assert row["idle"]["one_at_a_time"] and row["idle"]["recorded"] == 1
    assert row["idle"]["median_over_bare"] > 0 and row["gap_s"] == 5.0  # the default gap
    [(exercise_id, ratio)] = row["idle"]["over_own_bare"]  # over a bare run of its own program
    assert ratio == row["idle"]["median_over_own_bare"] > 0 and ".exercise." in exercise_id
    assert row["pool"] == 1 and row["pool_fill_s"] > 0  # filled by `pathways seed-pool` first
    assert "pool: 1 (filled in" in done.stdout


def test_cpu_budget_bench_splits_the_steps_beside_the_floor(run_bench, tmp_path: Path) -> None:
    done = run_bench("cpu_budget.py", "--db", "sqlite", "--learners", "3", timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    [row] = json_lines(tmp_path / "results" / "cpu_budget.jsonl")
    assert set(row["cpu_ms_per_step"]) == {"login", "launch", "page", "answer"}
    assert all(v > 0 for v in row["cpu_ms_per_step"].values())
    assert row["floor_cpu_ms_per_request"] > 0 and row["launch_over_floor"] > 0
    assert "id_token" in done.stdout and "floor" in done.stdout
