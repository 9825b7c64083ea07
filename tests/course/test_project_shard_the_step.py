"""The Phase 04 project runs for real on 8 logical devices: the solution passes every stage and
writes evidence (equal trajectories, the all-reduce), the starter stops at its first TODO, and
a step that never splits the batch is caught by the stage that proves it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from project_runs import run_project

PROJECT = (Path(__file__).resolve().parents[2] / "course" / "content" / "projects"
           / "shard-the-step")


def test_solution_passes_every_stage_and_writes_evidence(tmp_path: Path) -> None:
    result = run_project(PROJECT, tmp_path, "--implementation", "solution", "--stage", "5",
                         "--evidence-dir", "runs/shard-the-step")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASS: project.shard-the-step stage 5" in result.stdout
    evidence = json.loads((tmp_path / "runs/shard-the-step/evidence.json").read_text())
    assert evidence["environment"]["device_count"] == 8
    assert evidence["collectives"]["all-reduce"] >= 1 and evidence["collectives"]["all-gather"] == 0
    eight, one = evidence["trajectory"]["eight_devices"], evidence["trajectory"]["one_device"]
    assert len(eight) == len(one) == 5 and eight[-1] < eight[0]


def test_starter_stops_at_its_first_todo(tmp_path: Path) -> None:
    result = run_project(PROJECT, tmp_path, "--implementation", "starter", "--stage", "1")
    assert result.returncode == 2 and "TODO: stage 1" in result.stdout, result.stdout


def test_a_step_that_never_splits_the_batch_fails_stage_2(tmp_path: Path) -> None:
    project = tmp_path / "shard-the-step"
    shutil.copytree(PROJECT, project)
    source = (PROJECT / "solution" / "model.py").read_text()
    (project / "starter" / "model.py").write_text(
        source + "\n\nsharded_step = jax.jit(_step)\n")
    result = run_project(project, tmp_path, "--implementation", "starter", "--stage", "2")
    assert result.returncode == 1 and "not whole on all 8 devices" in result.stdout, result.stdout
