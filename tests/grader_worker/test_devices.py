"""Logical CPU devices: an exercise that declares ``devices`` gets them in its runs only (cold
and warm), with limits sized for them, and the result records the count."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest
from grader_helpers import CORPUS_LIMITS, HERE, make_job

from course.checks import HARNESS_PATH
from grader_worker.config import load_config
from grader_worker.grading import GradingTarget, grade
from grader_worker.limits import PER_DEVICE, Limits
from grader_worker.runner import SandboxRunner
from grader_worker.warm import WarmRunner
from grading_contract.result import GradingResult
from tests.packaged import packaged_course

CHECKS = HERE / "fixtures" / "devices_checks.py"
# No XLA_FLAGS of its own: whatever devices it has, the grader gave it.
PROGRAM = """
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

count = jax.device_count()
mesh = Mesh(np.array(jax.devices()), ("data",))
x = jax.device_put(jnp.arange(16.0), NamedSharding(mesh, P("data")))
shards = len(x.addressable_shards)
total = float(jax.jit(jnp.sum)(x))
"""
LIMITS = dataclasses.replace(CORPUS_LIMITS, wall_s=40, cpu_s=10)


def _grade(runner: SandboxRunner, devices: int) -> GradingResult:
    return grade(make_job(PROGRAM), runner=runner, ceiling=LIMITS,
                 checks_for=lambda _: GradingTarget(CHECKS, devices=devices))


@pytest.fixture(scope="module")
def warm() -> Iterator[WarmRunner]:
    r = WarmRunner(load_config({"PATHWAYS_VAR_DIR": "var"}), HARNESS_PATH, ceiling=LIMITS)
    yield r
    r.close()


def test_a_cold_run_gets_the_devices_its_exercise_declares(runner: SandboxRunner) -> None:
    result = _grade(runner, 8)
    assert (result.outcome, result.score) == ("graded", 3.0), (result.feedback, result.stderr)
    assert result.environment.device_count == 8
    plain = _grade(runner, 1)  # the same program where no devices are declared: one device
    assert plain.outcome == "graded" and plain.score == 0.0, plain.feedback
    assert plain.environment.device_count == 1


def test_one_warm_parent_serves_both_device_counts(warm: WarmRunner) -> None:
    first, plain, again = _grade(warm, 8), _grade(warm, 1), _grade(warm, 8)
    assert (first.outcome, first.score) == ("graded", 3.0), (first.feedback, first.stderr)
    assert plain.score == 0.0, "the flag belongs to one run, not to the parent"
    assert again.score == 3.0 and again.environment.device_count == 8
    assert len(warm._all) == 1 and warm.replaced == 0


def test_limits_are_sized_for_the_devices_and_still_bounded() -> None:
    base = Limits()
    eight = base.for_devices(8)
    assert eight.memory_mb == base.memory_mb + 7 * PER_DEVICE["memory_mb"]
    assert eight.pids == base.pids + 7 * PER_DEVICE["pids"]
    assert eight.cpu_s == base.cpu_s + 7 * PER_DEVICE["cpu_s"]
    assert base.for_devices(1) == base
    # a job asking for more than the ceiling is clipped before the devices' share is added
    asked = Limits.from_job({"memory_mb": 10**6}, base).for_devices(8)
    assert asked.memory_mb == eight.memory_mb


def test_a_phase_04_exercise_is_graded_on_its_devices_through_the_course(
        runner: SandboxRunner) -> None:
    """The worker's course resolver reads the exercise's declared devices: the reference of
    parallel-01's spread scores full marks with its layout read from the sandboxed run, and
    an answer that never splits the array loses the layout's points."""
    import time

    from course import submission_for
    from grader_worker.worker import course_checks_resolver
    from grading_contract.job import Job

    lesson, exercise = packaged_course().exercise("parallel-01.exercise.spread")
    assert exercise.devices == 8
    resolve = course_checks_resolver(None)

    def graded(code: str) -> GradingResult:
        source = submission_for(lesson, exercise, code)
        return grade(Job("sub-1", 1, exercise.id, source, time.time(), {}, {"dim": 1}),
                     runner=runner, checks_for=resolve)

    full = graded(exercise.for_variant({"dim": 1}).solution_code)
    assert (full.outcome, full.score) == ("graded", exercise.max_points), (full.feedback,
                                                                            full.stderr)
    assert full.environment.device_count == 8
    unsplit = graded("def spread(x):\n    return x\n")
    assert unsplit.outcome == "graded" and unsplit.score == exercise.max_points - 2
    failed = [c.name for c in unsplit.checks if c.status != "passed"]
    assert failed == ["spread returns output 0 with the asked layout"], failed
