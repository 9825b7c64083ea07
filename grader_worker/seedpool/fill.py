"""Fill a pool ahead of a class: the reference's report for fresh seeds of every function
exercise and variant, through the same sandboxed reference runs a grading makes."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from course.checks import CheckSuite, load_suite
from course.variants import variant_space
from grader_worker.errors import GraderError
from grader_worker.limits import Limits
from grader_worker.reference import pool_key, reference_report
from grader_worker.runner import SandboxRunner
from grader_worker.seedpool.store import SeedPool
from grader_worker.target import GradingTarget


@dataclass(frozen=True)
class Filled:
    exercise_id: str
    variant: dict
    added: int
    size: int


def fill(pool: SeedPool, runner: SandboxRunner, checks_for: Callable[[str], GradingTarget],
         exercise_ids: Iterable[str], *, per_key: int, ceiling: Limits | None = None,
         concurrency: int = 1, variants: int | None = None,
         progress: Callable[[Filled], None] = lambda _: None) -> list[Filled]:
    """Add entries until each (exercise, variant) key holds ``per_key`` (at most the pool's
    size), ``concurrency`` keys at a time; exercises without a function (nothing to pool)
    are skipped; ``variants``: only each exercise's first so many (None: every one). Results
    in the order of the exercises and their variants."""
    jax_version = runner.info().jax
    keys: list[tuple[str, GradingTarget, CheckSuite, dict]] = []
    for exercise_id in exercise_ids:
        target = checks_for(exercise_id)
        suite = load_suite(target.checks_path)
        if suite.function is not None and target.reference is not None:
            space = list(variant_space(target.params or {}))
            keys += [(exercise_id, target, suite, dict(v)) for v in space[:variants]]

    def one(job: tuple[str, GradingTarget, CheckSuite, dict]) -> Filled:
        exercise_id, target, suite, variant = job
        limits = (ceiling or Limits()).for_devices(target.devices)
        key = pool_key(exercise_id, target, variant, runner, jax_version)
        added = 0
        while (size := pool.count(key)) < min(per_key, pool.size):
            seed = secrets.randbelow(2**31)
            calls, report = reference_report(suite, target, variant, seed, runner, limits)
            if not pool.add(key, seed, calls, report):
                raise GraderError(f"the seed pool {pool.path} did not keep an entry "
                                  "(not writable? the worker's log says why)")
            added += 1
        filled = Filled(exercise_id, variant, added, size)
        progress(filled)
        return filled

    with ThreadPoolExecutor(max(1, concurrency), thread_name_prefix="fill") as workers:
        return list(workers.map(one, keys))
