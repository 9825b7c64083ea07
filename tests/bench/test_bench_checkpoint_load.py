"""bench/checkpoint_load.py at N=5: real gunicorn, real LTI launches, real answers, counted in
the database; and bench/report.py turning its line into the README section."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from bench_helpers import ROOT, json_lines

pytestmark = pytest.mark.slow
FIELDS = {"db", "learners", "workers", "answers_sent", "answers_ok", "answers_recorded",
          "scores_queued", "lost", "errors", "answers_per_s", "requests_per_s", "answer",
          "launch", "loadavg_before", "loadavg_after", "timestamp", "command", "cpu_count"}


def _check_line(row: dict, db: str) -> None:
    assert FIELDS <= set(row), FIELDS - set(row)
    assert (row["db"], row["learners"]) == (db, 5)
    assert row["errors"] == 0, row["error_samples"]
    assert row["answers_sent"] == row["answers_ok"] == row["answers_recorded"] == 5
    assert row["scores_queued"] == 5 and row["lost"] == 0
    # Every launch checked its signature against the JWKS, fetched once (the key-set cache).
    assert row["jwks_fetches"] == 1
    floor = row["floor"]
    assert floor["recorded"] == floor["sent"] == 4 * 5
    assert floor["answer"]["ok"] == floor["launch"]["ok"] == 5
    assert floor["answer"]["per_s"] > 0 and row["over_floor"]["answer_p50"] > 0
    # The CPU budget's ratios are on every line, beside their targets (not gated at N=5).
    assert row["cpu_over_floor"]["launch"] > 0 and row["cpu_over_floor"]["answer"] > 0
    assert [t["target"] for t in row["targets"] if t["target"].startswith("cpu")] == [
        "cpu per launch / floor's 3 requests", "cpu per answer / floor's request"]
    assert not any(t["gate"] for t in row["targets"])
    for key in ("p50_ms", "p95_ms", "p99_ms"):
        assert 0 < row["answer"][key] < 60_000
    assert len(row["loadavg_before"]) == 3


def _run(run_bench, tmp_path: Path, db: str, env: dict[str, str] | None = None) -> Path:
    out = tmp_path / "results" / "checkpoint_load.jsonl"
    done = run_bench("checkpoint_load.py", "--db", db, "--sizes", "5", "--ramp", "0.5",
                     "--window", "0.5", "--max-seconds", "120", "--results", str(out), env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "N=   5" in done.stderr and "recorded 5" in done.stderr
    return out


def test_sqlite_run_records_every_answer_and_reports(run_bench, tmp_path: Path) -> None:
    out = _run(run_bench, tmp_path, "sqlite")
    [row] = json_lines(out)
    _check_line(row, "sqlite")
    assert out.with_suffix(".png").stat().st_size > 1000

    readme = tmp_path / "README.md"
    shutil.copy(ROOT / "README.md", readme)
    before = readme.read_text().split("## Latest benchmark figures")[0]
    done = run_bench("report.py", "--readme", str(readme), "--results", str(out.parent))
    assert done.returncode == 0, done.stderr
    text = readme.read_text()
    assert text.startswith(before)  # everything above the section is untouched
    section = text.split("## Latest benchmark figures", 1)[1]
    assert "| sqlite | 5 | 2 |" in section and row["command"] in section
    again = run_bench("report.py", "--readme", str(readme), "--results", str(out.parent),
                      "--check")
    assert again.returncode == 0, again.stderr


@pytest.mark.postgres
def test_postgres_run_records_every_answer(run_bench, tmp_path: Path, postgres_url: str) -> None:
    out = _run(run_bench, tmp_path, "postgres", env={"TEST_DATABASE_URL": postgres_url})
    [row] = json_lines(out)
    _check_line(row, "postgres")


def test_launch_bench_measures_launches_and_their_floor(run_bench, tmp_path: Path) -> None:
    out = tmp_path / "results" / "launch_load.jsonl"
    done = run_bench("launch_load.py", "--db", "sqlite", "--sizes", "4", "--ramp", "0.5",
                     "--max-seconds", "120", "--results", str(out))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    [row] = json_lines(out)
    assert (row["bench"], row["learners"], row["errors"]) == ("launch_load", 4, 0)
    assert row["answers_sent"] == 0 and row["jwks_fetches"] == 1
    assert row["launch"]["p95_ms"] > 0 and row["floor"]["launch"]["ok"] == 4
    assert "answer" not in row["floor"] and row["floor"]["recorded"] == 12
    assert row["over_floor"]["launch_p95"] > 0


def test_report_refuses_a_damaged_results_line(run_bench, tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    (results / "checkpoint_load.jsonl").write_text('{"db": "sqlite"\n')
    readme = tmp_path / "README.md"
    shutil.copy(ROOT / "README.md", readme)
    original = readme.read_text()
    done = run_bench("report.py", "--readme", str(readme), "--results", str(results))
    assert done.returncode == 2
    assert "checkpoint_load.jsonl:1: not a JSON line" in done.stderr
    assert readme.read_text() == original


def test_report_needs_the_heading(run_bench, tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# A README without the section\n")
    done = run_bench("report.py", "--readme", str(readme), "--results", str(tmp_path))
    assert done.returncode == 2 and "has no line '## Latest benchmark figures'" in done.stderr
    assert readme.read_text() == "# A README without the section\n"


def test_bad_sizes_are_refused_with_a_message(run_bench) -> None:
    done = run_bench("checkpoint_load.py", "--sizes", "50,lots")
    assert done.returncode == 2 and "--sizes '50,lots': give whole numbers" in done.stderr
