"""The hostile corpus: each submission is a clear failure, nothing leaks, the next job runs."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from grader_helpers import CANARY, CORPUS_LIMITS, FIXTURE_CHECKS, GOOD, HERE, make_job

from grader_worker.grading import grade
from grading_contract.result import GradingResult

CORPUS = sorted((HERE / "hostile").glob("*.py"))


def expected(path: Path) -> set[str]:
    first = path.read_text().splitlines()[0]
    assert first.startswith("# expect: "), f"{path.name}: first line must be '# expect: ...'"
    return set(first.removeprefix("# expect: ").split())


@pytest.fixture(scope="module")
def graded(runner, secret_dir) -> dict[str, GradingResult]:
    """Grade the whole corpus, 3 runs at a time, with a canary in the worker's environment."""
    os.environ["PATHWAYS_CANARY_SECRET"] = CANARY
    os.environ["XLA_FLAGS"] = "--xla_dump_to=/tmp/learner-chosen"
    try:
        def one(path: Path) -> tuple[str, GradingResult]:
            source = (path.read_text().replace("__SECRET_DIR__", str(secret_dir))
                      .replace("__CHECKS_PATH__", str(FIXTURE_CHECKS)))
            job = make_job(source, submission_id=path.stem)
            return path.name, grade(job, runner=runner, checks_for=lambda _: FIXTURE_CHECKS,
                                    ceiling=CORPUS_LIMITS)

        with ThreadPoolExecutor(max_workers=3) as pool:
            return dict(pool.map(one, CORPUS))
    finally:
        del os.environ["PATHWAYS_CANARY_SECRET"], os.environ["XLA_FLAGS"]


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_hostile_submission_is_a_clear_failure(path: Path, graded) -> None:
    result = graded[path.name]
    assert result.outcome in expected(path), (result.outcome, result.feedback, result.stderr)
    assert result.score < result.max_score == 3.0
    assert result.feedback, "every outcome carries feedback"
    assert CANARY not in result.stdout + result.stderr + result.feedback
    if result.outcome != "graded":
        assert result.score == 0.0


def test_sandbox_environment_is_cleared(graded) -> None:
    """read_environment printed the whole environment: none of the worker's is there."""
    stdout = graded["read_environment.py"].stdout
    assert "JAX_PLATFORMS" in stdout and "XLA_FLAGS" not in stdout and "REDIS" not in stdout


def test_worker_lives_on_and_next_job_scores_full(graded, runner) -> None:
    result = grade(make_job(GOOD.read_text()), runner=runner, checks_for=lambda _: FIXTURE_CHECKS,
                   ceiling=CORPUS_LIMITS)
    assert result.outcome == "graded", result.feedback
    assert result.score == result.max_score == 3.0
    assert result.environment.device_count >= 1 and result.environment.jax


def test_exception_traceback_is_trimmed_to_the_learners_file(runner) -> None:
    source = "import jax.numpy as jnp\nx = jnp.ones(3)\nmasked = x[10] / undefined_name\n"
    result = grade(make_job(source), runner=runner, checks_for=lambda _: FIXTURE_CHECKS,
                   ceiling=CORPUS_LIMITS)
    assert result.outcome == "exception"
    assert "NameError" in result.stderr and 'File "main.py", line 3' in result.stderr
    assert "harness" not in result.stderr and "site-packages" not in result.stderr
    assert "line 3" in result.feedback


def test_unknown_exercise_is_an_infrastructure_error(runner) -> None:
    def missing(exercise_id: str) -> Path:
        return Path("/nonexistent") / exercise_id

    result = grade(make_job(GOOD.read_text()), runner=runner, checks_for=missing)
    assert result.outcome == "infrastructure_error"
    assert "not in your code" in result.feedback


def test_an_interpreter_under_tmp_is_visible_inside_the_sandbox(tmp_path: Path) -> None:
    """The sandbox's private /tmp must not hide a venv that lives under /tmp (a checkout in
    /tmp, as CI may make): a venv there, seeing this venv's packages, grades a good job."""
    import site
    import subprocess
    import sys
    import tempfile

    from course.checks import HARNESS_PATH
    from grader_worker.config import load_config
    from grader_worker.runner import SandboxRunner

    base = Path(tempfile.mkdtemp(prefix="pathways-venv-", dir="/tmp"))
    try:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(base / "venv")],
                       check=True)
        [purelib] = (base / "venv" / "lib").glob("python*/site-packages")
        (purelib / "parent.pth").write_text("\n".join(site.getsitepackages()) + "\n")
        python = str(base / "venv" / "bin" / "python")
        tmp_runner = SandboxRunner(load_config({"PATHWAYS_VAR_DIR": str(tmp_path),
                                                "PATHWAYS_GRADER_PYTHON": python}), HARNESS_PATH)
        try:
            result = grade(make_job(GOOD.read_text()), runner=tmp_runner,
                           checks_for=lambda _: FIXTURE_CHECKS, ceiling=CORPUS_LIMITS)
        finally:
            tmp_runner.close()
        assert result.outcome == "graded", (result.feedback, result.stderr)
        assert result.score == result.max_score
    finally:
        subprocess.run(["rm", "-rf", str(base)], check=False)
