"""The Phase 03 project runs for real: the solution passes every stage and writes evidence of a
seeded run, the starter stops at its first TODO, and a layout-bound loss, an unjitted step or a
checkpoint that drops the optimizer's state is caught by the stage that proves it."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from project_runs import run_project

PROJECT = (Path(__file__).resolve().parents[2] / "course" / "content" / "projects"
           / "train-from-scratch")


def broken_copy(tmp_path: Path, old: str, new: str) -> Path:
    """The project with the reference solution as the starter, one piece replaced."""
    project = tmp_path / "train-from-scratch"
    shutil.copytree(PROJECT, project)
    source = (PROJECT / "solution" / "model.py").read_text()
    assert old in source
    (project / "starter" / "model.py").write_text(source.replace(old, new))
    return project


def test_solution_passes_every_stage_and_writes_evidence(tmp_path: Path) -> None:
    result = run_project(PROJECT, tmp_path, "--implementation", "solution", "--stage", "6",
                         "--evidence-dir", "runs/train-from-scratch")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASS: project.train-from-scratch stage 6" in result.stdout
    evidence = tmp_path / "runs" / "train-from-scratch"
    record = json.loads((evidence / "evidence.json").read_text())
    provenance = record["provenance"]
    assert provenance["model_sha256"] == hashlib.sha256(
        (PROJECT / "solution" / "model.py").read_bytes()).hexdigest()
    assert provenance["data"]["seed"] == 0 and provenance["optimizer"]["rule"] == "optax.adam"
    curve = record["curve"]
    assert len(curve["train_loss"]) == 40 and curve["train_loss"][-1] < curve["train_loss"][0] / 2
    assert curve["test_accuracy"][-1] >= 0.9
    assert {c["stage"] for c in record["checks"]} == {1, 2, 3, 4, 5}
    assert all(check["passed"] for check in record["checks"])
    assert (evidence / "figure.png").read_bytes()[:4] == b"\x89PNG"


def test_starter_stops_at_its_first_todo(tmp_path: Path) -> None:
    result = run_project(PROJECT, tmp_path, "--implementation", "starter", "--stage", "1")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "STOPPED at a TODO" in result.stderr and "TODO 1 (init_params)" in result.stderr


def test_a_loss_written_for_one_layout_fails_on_another_pytree(tmp_path: Path) -> None:
    project = broken_copy(
        tmp_path,
        "    return optax.softmax_cross_entropy_with_integer_labels(predict(params, x), y).mean()",
        "    h = jnp.tanh(x @ params[0]['w'] + params[0]['b'])\n"
        "    h = jnp.tanh(h @ params[1]['w'] + params[1]['b'])\n"
        "    z = h @ params[2]['w'] + params[2]['b']\n"
        "    return optax.softmax_cross_entropy_with_integer_labels(z, y).mean()")
    result = run_project(project, tmp_path, "--implementation", "starter", "--stage", "3")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "[FAIL] works on another parameter pytree" in result.stdout
    assert "[ok] compiled once for 20 steps" in result.stdout


def test_a_checkpoint_without_the_optimizer_state_breaks_the_resumed_run(tmp_path: Path) -> None:
    project = broken_copy(
        tmp_path, '    return dict(state, key=jax.random.wrap_key_data(state["key"]))',
        '    state = dict(state, opt_state=optimizer.init(state["params"]))\n'
        '    return dict(state, key=jax.random.wrap_key_data(state["key"]))')
    result = run_project(project, tmp_path, "--implementation", "starter", "--stage", "5")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "[FAIL] the resumed trajectory equals the straight one" in result.stdout
    assert "[FAIL] restored state equals the saved one" in result.stdout
