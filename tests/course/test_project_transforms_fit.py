"""The Phase 02 project runs for real: the solution passes every stage and writes evidence with
its provenance, the starter stops at its first TODO with a message that says what to do, and a
wrong gradient or a fake per-example gradient is caught by the stage that proves it."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from project_runs import run_project

PROJECT = (Path(__file__).resolve().parents[2] / "course" / "content" / "projects"
           / "transforms-fit")


def broken_copy(tmp_path: Path, override: str) -> Path:
    """The project with the reference solution as the starter, one function replaced."""
    project = tmp_path / "transforms-fit"
    shutil.copytree(PROJECT, project)
    source = (PROJECT / "solution" / "model.py").read_text()
    (project / "starter" / "model.py").write_text(source + "\n\n" + override)
    return project


def test_solution_passes_every_stage_and_writes_evidence(tmp_path: Path) -> None:
    result = run_project(PROJECT, tmp_path, "--implementation", "solution", "--stage", "5",
                         "--evidence-dir", "runs/transforms-fit")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASS: project.transforms-fit stage 5" in result.stdout
    for stage in ("Stage 1", "Stage 2", "Stage 3", "Stage 4", "Stage 5"):
        assert stage in result.stdout
    evidence = tmp_path / "runs" / "transforms-fit"
    record = json.loads((evidence / "evidence.json").read_text())
    assert record["project"] == "project.transforms-fit"
    provenance = record["provenance"]
    assert provenance["model_sha256"] == hashlib.sha256(
        (PROJECT / "solution" / "model.py").read_bytes()).hexdigest()
    assert provenance["data"]["seed"] == 0 and provenance["optimizer"]["steps"] == 60
    losses = record["curve"]["loss"]
    assert len(losses) == 61 and losses[-1] < losses[0] / 1000
    assert {c["stage"] for c in record["checks"]} == {1, 2, 3, 4}
    assert all(check["passed"] for check in record["checks"])
    assert record["environment"]["device_count"] >= 1
    assert (evidence / "figure.png").read_bytes()[:4] == b"\x89PNG"


def test_starter_stops_at_its_first_todo(tmp_path: Path) -> None:
    result = run_project(PROJECT, tmp_path, "--implementation", "starter", "--stage", "1")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "STOPPED at a TODO" in result.stderr
    assert "TODO 1 (loss in starter/model.py)" in result.stderr
    assert not (tmp_path / "runs").exists(), "stages 1-4 write no evidence"


def test_a_wrong_gradient_fails_the_finite_difference_check(tmp_path: Path) -> None:
    """The gradient of the summed loss has the right direction and the wrong size."""
    project = broken_copy(tmp_path, (
        "def loss_grad(w, b, x, y):\n"
        "    return jax.grad(lambda w, b: jnp.sum((predict(w, b, x) - y) ** 2),\n"
        "                    argnums=(0, 1))(w, b)\n"))
    result = run_project(project, tmp_path, "--implementation", "starter", "--stage", "2")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "[FAIL] d loss / d w matches central differences" in result.stdout
    assert "[ok] gradients are shaped like the parameters" in result.stdout


def test_a_broadcast_batch_gradient_is_not_per_example(tmp_path: Path) -> None:
    project = broken_copy(tmp_path, (
        "def per_example_grads(w, b, x, y):\n"
        "    dw, db = loss_grad(w, b, x, y)\n"
        "    n = x.shape[0]\n"
        "    return jnp.broadcast_to(dw, (n, dw.shape[0])), jnp.broadcast_to(db, (n,))\n"))
    result = run_project(project, tmp_path, "--implementation", "starter", "--stage", "4")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "[ok] their mean is the batch gradient" in result.stdout
    assert "[FAIL] each row is that example's own gradient" in result.stdout


def test_missing_solution_says_it_is_not_in_the_download(tmp_path: Path) -> None:
    project = tmp_path / "transforms-fit"
    shutil.copytree(PROJECT, project, ignore=shutil.ignore_patterns("solution"))
    result = run_project(project, tmp_path, "--implementation", "solution", "--stage", "1")
    assert result.returncode != 0
    assert "not in the learner download" in result.stderr
    assert "--implementation starter" in result.stderr



def test_hidden_checks_demand_vmap_jit_and_a_transformation() -> None:
    """Per-example gradients from a Python loop give the same numbers: the vectorised rule
    (what JAX traces from the submission, as the grader reads it) tells them from the vmap
    answer; train_step must be the learner's own jitted function; and ``predict`` is drawn at
    grading time, so hand-derived gradients of a linear model cannot match."""
    from course.checks import load_suite

    suite = load_suite(PROJECT / "checks.py")
    assert suite.function is not None and suite.function.function == "per_example_grads"
    titles = [rule.title for rule in suite.function.rules]
    assert any("one batched program" in t for t in titles)
    assert any("compiled once per distinct signature" in t for t in titles)
    assert [r.subject for r in suite.function.rules] == ["", "train_step"]
    drawn = [suite.substitutes({}, seed)["predict"] for seed in (1, 2)]
    assert drawn[0] != drawn[1] and all("def predict(w, b, x)" in d for d in drawn)
