"""The warm runner (PATHWAYS_GRADER_WARM=1): same outcomes as cold runs, and nothing of one
run (files, processes) survives into the next run of the same warm parent."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from grader_helpers import CORPUS_LIMITS, FIXTURE_CHECKS, GOOD, HERE, make_job

from course.checks import HARNESS_PATH
from grader_worker.config import load_config
from grader_worker.grading import grade
from grader_worker.warm import WarmRunner
from grading_contract.result import GradingResult

LEAVE_BEHIND = """
import subprocess
open("/home/learner/left-behind.txt", "w").write("run A")
open("/tmp/left-behind.txt", "w").write("run A")
subprocess.Popen(["/bin/sh", "-c", "sleep 300"], start_new_session=True)
"""

LOOK_AROUND = """
import glob
import os
found = glob.glob("/home/learner/**", recursive=True) + glob.glob("/tmp/**", recursive=True)
assert not [f for f in found if "left-behind" in f], found
for pid in (p for p in os.listdir("/proc") if p.isdigit()):
    try:
        cmdline = open(f"/proc/{pid}/cmdline", "rb").read()
    except OSError:
        continue
    assert b"sleep" not in cmdline, cmdline
"""


@pytest.fixture(scope="module")
def warm() -> Iterator[WarmRunner]:
    r = WarmRunner(load_config({"PATHWAYS_VAR_DIR": "var"}), HARNESS_PATH,
                   ceiling=CORPUS_LIMITS)
    yield r
    r.close()


def _grade(runner: WarmRunner, source: str) -> GradingResult:
    return grade(make_job(source), runner=runner, checks_for=lambda _: FIXTURE_CHECKS,
                 ceiling=CORPUS_LIMITS)


def test_warm_runs_score_and_reuse_the_parent(warm: WarmRunner) -> None:
    first, second = _grade(warm, GOOD.read_text()), _grade(warm, GOOD.read_text())
    assert (first.outcome, first.score, second.outcome, second.score) == (
        "graded", 3.0, "graded", 3.0), (first.feedback, first.stderr)
    assert len(warm._all) == 1, "both runs forked from one warm parent"


def test_nothing_of_a_run_survives_into_the_next(warm: WarmRunner) -> None:
    left = _grade(warm, LEAVE_BEHIND + GOOD.read_text())
    assert left.outcome == "graded", (left.feedback, left.stderr)
    looked = _grade(warm, LOOK_AROUND + GOOD.read_text())
    assert looked.outcome == "graded" and looked.score == 3.0, (looked.feedback, looked.stderr)


@pytest.mark.parametrize("name, outcomes", [
    ("infinite_loop", {"timeout"}), ("huge_output", {"output_limit"}),
    ("memory_bomb_tmpfs", {"memory_limit"}), ("memory_bomb", {"memory_limit"}),
    ("kill_parent", {"sandbox_violation"}), ("kill_own_group", {"sandbox_violation"}),
    ("network_connect", {"sandbox_violation"}), ("write_outside", {"sandbox_violation"}),
])
def test_hostile_runs_fail_clearly_and_the_next_run_works(warm: WarmRunner, name: str,
                                                          outcomes: set[str]) -> None:
    result = _grade(warm, (HERE / "hostile" / f"{name}.py").read_text())
    assert result.outcome in outcomes, (result.outcome, result.feedback, result.stderr)
    assert result.score == 0.0
    after = _grade(warm, GOOD.read_text())
    assert after.outcome == "graded" and after.score == 3.0, (after.feedback, after.stderr)
