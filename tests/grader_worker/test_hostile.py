"""The hostile corpus: each submission is a clear failure, nothing leaks, the next job runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from grader_helpers import (
    CORPUS,
    CORPUS_LIMITS,
    FIXTURE_CHECKS,
    GOOD,
    TRUSTED_CPU_S,
    assert_clear_failure,
    grade_corpus,
    make_job,
)

from grader_worker import compile_cache
from grader_worker.grading import grade
from grading_contract.result import GradingResult


@pytest.fixture(scope="module")
def corpus(runner, secret_dir, tmp_path_factory) -> dict[str, tuple[GradingResult, float]]:
    """The whole corpus, 3 runs at a time, with the trusted thread's CPU per job. The worker's
    environment names a JAX compilation cache meanwhile, as `course check`'s does: no run
    may see it (runs see only the read-only public cache, docs/SANDBOX.md)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JAX_COMPILATION_CACHE_DIR", str(tmp_path_factory.mktemp("jax-cache")))
        return grade_corpus(runner, secret_dir)


@pytest.fixture(scope="module")
def graded(corpus) -> dict[str, GradingResult]:
    return {name: result for name, (result, _) in corpus.items()}


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_hostile_submission_is_a_clear_failure(path: Path, graded) -> None:
    assert_clear_failure(path, graded[path.name])


def test_trusted_process_spends_little_cpu_on_any_job(corpus) -> None:
    """Nothing a program leaves behind (100k directories, a 20k-deep tree) costs the worker."""
    spent = {name: round(cpu, 2) for name, (_, cpu) in corpus.items()}
    assert max(spent.values()) < TRUSTED_CPU_S, spent


def test_no_run_leaves_anything_on_the_host(corpus, runner) -> None:
    assert list(runner.base.iterdir()) == []


def test_refused_system_calls_and_a_full_disk_say_what_happened(graded) -> None:
    for name in ("unshare_namespace.py", "no_aslr.py", "ptrace_pid1.py"):
        assert "system call" in graded[name].feedback, (name, graded[name].feedback)
    assert "disk" in graded["fill_disk.py"].feedback, graded["fill_disk.py"].feedback
    assert "No space left" in graded["fill_disk.py"].stderr


def test_sandbox_environment_is_cleared(graded) -> None:
    """read_environment printed the whole environment: none of the worker's is there."""
    stdout = graded["read_environment.py"].stdout
    assert "JAX_PLATFORMS" in stdout and "XLA_FLAGS" not in stdout and "REDIS" not in stdout
    assert "'JAX_COMPILATION_CACHE_DIR': '/grader/jax-cache'" in stdout  # the read-only one
    assert "jax-cache" not in stdout.replace(compile_cache.MOUNT, "")  # never the worker's
    assert "'OPENBLAS_NUM_THREADS': '1'" in stdout  # the run's numpy BLAS: one thread, any host


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


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_an_interpreter_under_tmp_is_visible_inside_the_sandbox(tmp_path: Path,
                                                                warm: bool) -> None:
    """The sandbox's private /tmp (and a warm run's fresh one) must not hide a venv that lives
    under /tmp (a checkout in /tmp, as CI may make): a venv there, seeing this venv's packages,
    grades a good job, and the program sees its own interpreter."""
    import site
    import subprocess
    import sys
    import tempfile

    from course.checks import HARNESS_PATH
    from grader_worker.config import load_config
    from grader_worker.runner import SandboxRunner
    from grader_worker.warm import WarmRunner

    base = Path(tempfile.mkdtemp(prefix="pathways-venv-", dir="/tmp"))
    try:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(base / "venv")],
                       check=True)
        [purelib] = (base / "venv" / "lib").glob("python*/site-packages")
        (purelib / "parent.pth").write_text("\n".join(site.getsitepackages()) + "\n")
        python = str(base / "venv" / "bin" / "python")
        config = load_config({"PATHWAYS_VAR_DIR": str(tmp_path),
                              "PATHWAYS_GRADER_PYTHON": python})
        tmp_runner = (WarmRunner(config, HARNESS_PATH, ceiling=CORPUS_LIMITS) if warm
                      else SandboxRunner(config, HARNESS_PATH))
        source = GOOD.read_text() + (
            "\nimport os, sys\n"
            "assert os.path.isfile(sys.executable) and os.path.isdir(sys.prefix), sys.prefix\n")
        try:
            result = grade(make_job(source), runner=tmp_runner,
                           checks_for=lambda _: FIXTURE_CHECKS, ceiling=CORPUS_LIMITS)
        finally:
            tmp_runner.close()
        assert result.outcome == "graded", (result.feedback, result.stderr)
        assert result.score == result.max_score
    finally:
        subprocess.run(["rm", "-rf", str(base)], check=False)
