"""The Phase 01 project runs for real: the solution passes every stage, the starter stops at
its first TODO with a message that says what to do, and a padding-sensitive implementation is
caught by the changed-condition diagnosis."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from project_runs import run_project

PROJECT = Path(__file__).resolve().parents[2] / "course" / "content" / "projects" / "arrays-audit"


def test_solution_passes_every_stage_and_writes_evidence(tmp_path: Path) -> None:
    result = run_project(PROJECT, tmp_path, "--implementation", "solution", "--stage", "4",
                         "--evidence-dir", "runs/arrays-audit")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASS: project.arrays-audit stage 4" in result.stdout
    for stage in ("Stage 1", "Stage 2", "Stage 3", "Stage 4"):
        assert stage in result.stdout
    evidence = tmp_path / "runs" / "arrays-audit"
    record = json.loads((evidence / "evidence.json").read_text())
    assert record["project"] == "project.arrays-audit"
    assert record["masked_mean"][:3] == pytest.approx([2.0, 5.0, 10.0])
    assert all(check["passed"] for check in record["checks"])
    assert record["environment"]["device_count"] >= 1
    assert (evidence / "figure.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("stage", ["1", "2"])
def test_solution_single_stage(tmp_path: Path, stage: str) -> None:
    result = run_project(PROJECT, tmp_path, "--implementation", "solution", "--stage", stage)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "[FAIL]" not in result.stdout
    assert not (tmp_path / "runs").exists(), "stages 1 and 2 write no evidence"


def test_starter_stops_at_its_first_todo(tmp_path: Path) -> None:
    result = run_project(PROJECT, tmp_path, "--implementation", "starter", "--stage", "1")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "STOPPED at a TODO" in result.stderr
    assert "TODO 1 (masked_count in starter/model.py)" in result.stderr
    assert "jnp.sum(mask, axis=axis)" in result.stderr


def test_padding_sensitive_implementation_fails_the_diagnosis(tmp_path: Path) -> None:
    """A learner who divides by the padded length passes nothing they should not."""
    project = tmp_path / "arrays-audit"
    shutil.copytree(PROJECT, project)
    model = project / "starter" / "model.py"
    source = (PROJECT / "solution" / "model.py").read_text()
    model.write_text(source + (
        "\n\ndef masked_mean(values, mask, axis=-1):\n"
        "    return jnp.mean(values, axis=axis)\n"
    ))
    result = run_project(project, tmp_path, "--implementation", "starter", "--stage", "2")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "[FAIL] masked mean ignores more padding" in result.stdout
    assert "check(s) failed" in result.stderr


def test_missing_solution_says_it_is_not_in_the_download(tmp_path: Path) -> None:
    project = tmp_path / "arrays-audit"
    shutil.copytree(PROJECT, project, ignore=shutil.ignore_patterns("solution"))
    result = run_project(project, tmp_path, "--implementation", "solution", "--stage", "1")
    assert result.returncode != 0
    assert "not in the learner download" in result.stderr
    assert "--implementation starter" in result.stderr
