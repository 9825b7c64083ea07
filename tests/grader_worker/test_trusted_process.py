"""The trusted process stays bounded and tells its own failures from the program's, whatever
the sandbox reports: each case is graded as a clear outcome, and the next job scores full."""

from __future__ import annotations

import resource
from collections.abc import Iterator
from pathlib import Path

import pytest
from grader_helpers import CORPUS_LIMITS, FIXTURE_CHECKS, GOOD, make_job

from grader_worker.config import load_config
from grader_worker.grading import grade
from grader_worker.limits import Limits
from grader_worker.runner import SandboxRunner
from grading_contract.result import GradingResult

# Writes ``PAYLOAD`` (a report of the learner's making) to the grader's values pipe, then
# leaves before the harness can write the real one.
FORGE = """import os
PAYLOAD = {payload!r}
for fd in range(3, 256):
    try:
        if os.readlink(f"/proc/self/fd/{{fd}}").startswith("pipe:"):
            os.write(fd, PAYLOAD)
    except OSError:
        pass
os._exit(0)
"""
COMPILE_BOMB = 'x = f"' + "{x:{x}{x}{x}{x}{x}{x}{x}{x}}" * 8000 + '"\n'


def _grade(runner: SandboxRunner, source: str, limits: Limits = CORPUS_LIMITS) -> GradingResult:
    return grade(make_job(source), runner=runner, checks_for=lambda _: FIXTURE_CHECKS,
                 ceiling=limits)


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@pytest.fixture
def next_job_scores_full(runner: SandboxRunner) -> Iterator[None]:
    yield
    result = _grade(runner, GOOD.read_text())
    assert result.outcome == "graded" and result.score == result.max_score, result.feedback


def _report(header: bytes) -> bytes:
    return b"PWV1\n" + len(header).to_bytes(8, "big") + header


@pytest.mark.parametrize("payload", [
    _report(b"[" * 200_000 + b"]" * 200_000),
    _report(b'{"version": 1, "completed": true, "error": {"line": ' + b"9" * 5000
            + b'}, "names": {}}'),
], ids=["deeply nested header", "5000-digit integer"])
def test_a_forged_report_is_a_violation_not_a_crash(runner, next_job_scores_full,
                                                    payload: bytes) -> None:
    result = _grade(runner, FORGE.format(payload=payload))
    assert result.outcome == "sandbox_violation", (result.outcome, result.feedback)
    assert result.score == 0.0


def test_a_compile_bomb_costs_the_sandbox_not_the_worker(runner, next_job_scores_full) -> None:
    """Compiling COMPILE_BOMB takes seconds of CPU: that must be spent inside the sandbox."""
    _grade(runner, "x = 1\n")  # warm up the worker's own imports and probe
    before = _own_cpu()
    result = _grade(runner, COMPILE_BOMB)
    trusted = _own_cpu() - before
    assert result.outcome in ("exception", "timeout", "output_limit"), result.feedback
    assert trusted < 1.0, f"the worker spent {trusted:.2f} s of its own CPU"


def test_a_syntax_error_is_reported_from_inside_the_sandbox(runner) -> None:
    result = _grade(runner, "x = [1, 2\nprint(x)\n")
    assert result.outcome == "syntax_error", result.feedback
    assert "line 1" in result.feedback and "SyntaxError" in result.stderr


@pytest.mark.parametrize("source, outcome", [
    ("import os, sys\nsys.stderr.write('bwrap: Can\\'t mount proc\\n')\nsys.stderr.flush()\n"
     "os._exit(1)\n", "sandbox_violation"),
    ("import sys\nsys.stderr.write('bwrap: execvp python: No such file\\n')\n"
     + GOOD.read_text(), "graded"),
], ids=["then exits", "then runs to its end"])
def test_printing_bwrap_errors_is_charged_to_the_program(runner, next_job_scores_full,
                                                         source: str, outcome: str) -> None:
    result = _grade(runner, source)
    assert result.outcome == outcome, (result.outcome, result.feedback)
    assert result.stderr.startswith("bwrap:")


def test_a_sandbox_that_cannot_start_is_an_infrastructure_error(tmp_path: Path) -> None:
    """A real setup failure (a bind source that does not exist) is ours: retried, uncharged."""
    broken = SandboxRunner(load_config({"PATHWAYS_VAR_DIR": str(tmp_path)}),
                           tmp_path / "no-such-harness.py")
    try:
        result = _grade(broken, GOOD.read_text())
    finally:
        broken.close()
    assert result.outcome == "infrastructure_error", (result.outcome, result.feedback)
    assert "not in your code" in result.feedback


@pytest.mark.parametrize("source", [
    "while True:\n    pass\n",
    "import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\nwhile True:\n    pass\n",
], ids=["SIGXCPU", "SIGKILL at the hard limit"])
def test_the_cpu_limit_is_a_timeout(runner, next_job_scores_full, source: str) -> None:
    limits = Limits(wall_s=60, cpu_s=2, memory_mb=1024, data_mb=768, pids=128)
    result = _grade(runner, source, limits)
    assert result.outcome == "timeout", (result.outcome, result.feedback)
    assert "CPU seconds" in result.feedback


def test_a_program_that_kills_itself_is_not_a_timeout(runner, next_job_scores_full) -> None:
    result = _grade(runner, "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    assert result.outcome == "sandbox_violation", (result.outcome, result.feedback)
