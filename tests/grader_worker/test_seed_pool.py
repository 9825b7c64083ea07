"""The seed pool (docs/SEED_POOL.md): a function exercise graded from a pooled reference report
takes one sandboxed run, a stale entry is never trusted, the pool fails soft, and it is not an
answer key (the sandbox cannot read it, feedback never shows a pooled expected output)."""

from __future__ import annotations

import json
import re
import sqlite3
import stat
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from course import submission_for
from course.checks import load_suite, read_values
from grader_worker.config import load_config
from grader_worker.grading import VISIBLE_PREFIX, grade
from grader_worker.runner import SandboxRunner
from grader_worker.seedpool import PoolKey, SeedPool
from grading_contract.job import Job
from grading_contract.result import GradingResult
from tests.packaged import packaged_course

EXERCISE = "arrays-04.exercise.matrix-column"
KEY = PoolKey("v1", EXERCISE, {"value": 0.5}, "c" * 64, "cpu", "0.10.2", 1)


class CountingRunner:
    """The session's real runner, counting the sandboxed runs a grading makes."""

    def __init__(self, inner: SandboxRunner) -> None:
        self.inner, self.runs = inner, 0
        self.config = inner.config

    def info(self):  # noqa: ANN201
        return self.inner.info()

    def run(self, *args: Any, **kwargs: Any):  # noqa: ANN201
        self.runs += 1
        return self.inner.run(*args, **kwargs)


# -- the store ------------------------------------------------------------------------------

def test_a_key_is_drawn_from_only_once_it_holds_min_draw_and_grows_to_size(
        tmp_path: Path) -> None:
    pool = SeedPool(tmp_path / "p" / "pool.sqlite", size=4, min_draw=2)
    assert pool.draw(KEY) is None
    assert pool.add(KEY, 1, b"calls-1", b"report-1")
    assert pool.draw(KEY) is None  # one entry: below min_draw
    assert pool.add(KEY, 2, b"calls-2", b"report-2")
    seen = Counter(pool.draw(KEY).seed for _ in range(200))  # type: ignore[union-attr]
    assert set(seen) == {1, 2} and min(seen.values()) > 50  # uniform, both reachable
    assert pool.add(KEY, 3, b"c", b"r") and pool.add(KEY, 4, b"c", b"r")
    assert not pool.add(KEY, 5, b"c", b"r")  # full
    assert pool.count(KEY) == 4 and pool.sizes() == {EXERCISE: 4}
    other = PoolKey(**{**KEY.__dict__, "jax": "0.10.3"})
    assert pool.draw(other) is None  # another JAX computes its own references


def test_every_part_of_the_key_separates_pools() -> None:
    changed = {"course_version": "v2", "exercise_id": "x", "variant": {"value": 9.0},
                "checks_hash": "d" * 64, "platform": "tpu", "jax": "0.11", "devices": 8}
    digests = {PoolKey(**{**KEY.__dict__, name: value}).digest
               for name, value in changed.items()}
    assert len(digests | {KEY.digest}) == len(changed) + 1
    assert PoolKey(**{**KEY.__dict__, "variant": {"b": 1, "a": 2}}).digest == \
        PoolKey(**{**KEY.__dict__, "variant": {"a": 2, "b": 1}}).digest


def test_expired_entries_are_not_drawn_and_are_dropped(tmp_path: Path) -> None:
    pool = SeedPool(tmp_path / "pool.sqlite", size=10, min_draw=1, max_age_s=3600)
    pool.add(KEY, 1, b"c", b"r")
    with sqlite3.connect(pool.path) as db:
        db.execute("UPDATE pool SET made_at = ?", (time.time() - 7200,))
    assert pool.draw(KEY) is None and pool.count(KEY) == 0
    pool.add(KEY, 2, b"c", b"r")
    with sqlite3.connect(pool.path) as db:
        assert [r[0] for r in db.execute("SELECT seed FROM pool")] == [2]


def test_the_pool_is_the_workers_alone_and_fails_soft(tmp_path: Path) -> None:
    pool = SeedPool(tmp_path / "d" / "pool.sqlite", size=2, min_draw=1)
    pool.add(KEY, 1, b"c", b"r")
    assert stat.S_IMODE(pool.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(pool.path.parent.stat().st_mode) == 0o700
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    broken = SeedPool(blocked / "pool.sqlite", size=2, min_draw=1)
    assert broken.draw(KEY) is None and broken.add(KEY, 1, b"c", b"r") is False
    with pytest.raises(ValueError, match="min_draw"):
        SeedPool(tmp_path / "x.sqlite", size=2, min_draw=3)


def test_the_worker_configuration_names_the_pool(tmp_path: Path) -> None:
    var = {"PATHWAYS_VAR_DIR": str(tmp_path / "var")}
    config = load_config(var)
    assert config.seed_pool == tmp_path / "var/grader/seed-pool.sqlite"
    assert (config.seed_pool_size, config.seed_pool_min) == (1000, 100)
    assert load_config({**var, "PATHWAYS_GRADER_SEED_POOL": "off"}).seed_pool is None
    small = load_config({**var, "PATHWAYS_GRADER_SEED_POOL_SIZE": "10"})
    assert (small.seed_pool_size, small.seed_pool_min) == (10, 10)
    with pytest.raises(Exception, match="PATHWAYS_GRADER_SEED_POOL_MIN"):
        load_config({**var, "PATHWAYS_GRADER_SEED_POOL_SIZE": "10",
                     "PATHWAYS_GRADER_SEED_POOL_MIN": "11"})


# -- grading from the pool, in the real sandbox ---------------------------------------------

def _sources() -> tuple[dict[str, Any], str, str]:
    lesson, exercise = packaged_course().exercise(EXERCISE)
    variant = exercise.variants[1]
    solution = submission_for(lesson, exercise, exercise.for_variant(variant).solution_code)
    wrong = solution.replace("matrix.at[:, -1].set(", "matrix.at[:, -1].add(")
    assert wrong != solution
    return variant, solution, wrong


def _job(source: str, variant: dict[str, Any], n: int) -> Job:
    return Job(f"sub-{n}", 1, EXERCISE, source, time.time(), {}, variant, "", "")


@pytest.fixture(scope="module")
def warm_runner() -> Iterator[SandboxRunner]:
    """Warm, as a worker host with a pool runs (PATHWAYS_GRADER_WARM=1): what is counted
    here is runs, and a warm one spends no second importing JAX."""
    from course.checks import HARNESS_PATH
    from grader_worker.warm import WarmRunner

    r = WarmRunner(load_config({"PATHWAYS_VAR_DIR": "var"}), HARNESS_PATH)
    yield r
    r.close()


@pytest.fixture
def counting(warm_runner: SandboxRunner) -> Iterator[CountingRunner]:
    yield CountingRunner(warm_runner)


@pytest.fixture
def pool_dir() -> Iterator[Path]:
    """Outside /tmp (the sandbox's /tmp is its own), where a deployment keeps its var dir."""
    import shutil
    import uuid

    where = Path("var").resolve() / f"seed-pool-test-{uuid.uuid4().hex[:8]}"
    yield where
    shutil.rmtree(where, ignore_errors=True)


def test_a_full_pool_grades_with_one_sandboxed_run(counting: CountingRunner,
                                                   pool_dir: Path) -> None:
    from grader_worker.worker import course_checks_resolver

    variant, solution, wrong = _sources()
    pool = SeedPool(pool_dir / "pool.sqlite", size=1, min_draw=1)
    resolve = course_checks_resolver(None)
    first = grade(_job(solution, variant, 1), runner=counting, checks_for=resolve, pool=pool)
    assert (first.outcome, first.score) == ("graded", first.max_score), first.feedback
    assert counting.runs == 2 and sum(pool.sizes().values()) == 1  # reference + learner, kept

    counting.runs = 0
    again = grade(_job(solution, variant, 2), runner=counting, checks_for=resolve, pool=pool)
    assert (again.outcome, again.score) == ("graded", again.max_score), again.feedback
    assert counting.runs == 1 and again.seed == first.seed  # the learner's run only

    counting.runs = 0
    bad = grade(_job(wrong, variant, 3), runner=counting, checks_for=resolve, pool=pool)
    assert bad.outcome == "graded" and bad.score < bad.max_score and counting.runs == 1
    drawn = next(c for c in bad.checks if c.name.endswith("on inputs drawn at grading time"))
    assert drawn.status == "failed" and "random draw" in drawn.feedback
    assert "expected values of drawn inputs are not shown" in drawn.feedback
    _assert_no_pooled_output_shown(bad, pool, variant)


def test_a_stale_entry_is_discarded_and_the_reference_runs(counting: CountingRunner,
                                                           pool_dir: Path) -> None:
    from grader_worker.worker import course_checks_resolver

    variant, solution, _ = _sources()
    pool = SeedPool(pool_dir / "pool.sqlite", size=1, min_draw=1)
    resolve = course_checks_resolver(None)
    grade(_job(solution, variant, 1), runner=counting, checks_for=resolve, pool=pool)
    with sqlite3.connect(pool.path) as db:  # as if the checks drew other inputs now
        db.execute("UPDATE pool SET calls_sha = ?", ("0" * 64,))
    counting.runs = 0
    result = grade(_job(solution, variant, 2), runner=counting, checks_for=resolve, pool=pool)
    assert (result.outcome, result.score) == ("graded", result.max_score), result.feedback
    assert counting.runs == 2  # the reference ran again for that seed
    with sqlite3.connect(pool.path) as db:
        assert db.execute("SELECT calls_sha FROM pool").fetchone()[0] != "0" * 64


def test_a_learner_cannot_read_or_collect_the_pool(counting: CountingRunner,
                                                   pool_dir: Path) -> None:
    """Five attempts of a program that tries to read the pool and prints whatever it can see:
    the sandbox has no such file, and nothing a pooled draw expects reaches the result."""
    from grader_worker.worker import course_checks_resolver

    variant, solution, wrong = _sources()
    pool = SeedPool(pool_dir / "pool.sqlite", size=3, min_draw=1)
    resolve = course_checks_resolver(None)
    for n in range(3):  # three pooled seeds
        grade(_job(solution, variant, n), runner=counting, checks_for=resolve, pool=pool)
    probe = (f"import os\ntry:\n    print('POOL', len(open({str(pool.path)!r}, 'rb').read()))\n"
             f"except OSError as exc:\n    print('REFUSED', type(exc).__name__)\n"
             f"print('DIR', os.path.isdir({str(pool_dir)!r}))\n" + wrong)
    for n in range(5):
        result = grade(_job(probe, variant, 10 + n), runner=counting, checks_for=resolve,
                       pool=pool)
        assert result.outcome == "graded", result.feedback
        assert "REFUSED" in result.stdout and "POOL" not in result.stdout, result.stdout
        assert "DIR False" in result.stdout
        _assert_no_pooled_output_shown(result, pool, variant)


def _assert_no_pooled_output_shown(result: GradingResult, pool: SeedPool,
                                   variant: dict[str, Any]) -> None:
    """No number of an expected output on a drawn input (one that changes with the seed; the
    lesson's example and the fixed edge cases are known anyway), as the checks print it, is in
    the result outside the learner's own stdout and stderr."""
    shown = json.dumps({k: v for k, v in result.to_dict().items() if k not in ("stdout",
                                                                               "stderr")})
    lesson, exercise = packaged_course().exercise(EXERCISE)
    suite = load_suite(exercise.checks_path)
    printed = [float(n) for n in re.findall(r"-?\d+\.\d{4,}", shown)]  # drawn floats only
    with sqlite3.connect(pool.path) as db:
        rows = db.execute("SELECT seed, report FROM pool").fetchall()
    assert rows
    for seed, report in rows:
        expected = read_values(bytes(report))
        calls, other = suite.calls(variant, seed), suite.calls(variant, seed + 1)
        assert expected.calls is not None and len(expected.calls.results) == len(calls)
        drawn = [repr(a) != repr(b) for a, b in zip(calls, other, strict=True)]
        assert any(drawn) and not any(drawn[i] for i, c in enumerate(calls)
                                      if c.label.startswith(VISIBLE_PREFIX))
        for is_drawn, call in zip(drawn, expected.calls.results, strict=True):
            if not is_drawn:
                continue
            for out in call.plain.outputs or ():
                if out.kind == "array":
                    # as values: printed in float32 or float64, maybe cut short
                    for value in np.asarray(out.value, dtype=np.float64).ravel():
                        near = [n for n in printed if abs(n - value) <= 1e-6 * max(1, abs(value))]
                        assert not near, (value, shown)


def test_seed_pool_command_fills_every_variant_before_a_class(
        tmp_path: Path, counting: CountingRunner) -> None:
    """`pathways seed-pool` fills each variant of an exercise with reference runs (warm, as a
    worker host runs them) up to the pool's size; a second fill adds nothing; a grading then
    draws from that file with one sandboxed run."""
    import subprocess
    import sys

    from grader_helpers import worker_env

    from grader_worker.worker import course_checks_resolver

    exe = Path(sys.executable).with_name("pathways")
    env = {**worker_env(tmp_path / "var", "pool-", warm=True),
           "PATHWAYS_GRADER_SEED_POOL_SIZE": "2"}
    done = subprocess.run([str(exe), "seed-pool", "--exercise", EXERCISE, "--concurrency", "2"],
                          env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"{EXERCISE} {{'value': 0.5}}: 2 entries (+2)" in done.stdout, done.stdout
    assert f"{EXERCISE}: 6 entries in" in done.stdout  # three variants, two each
    again = subprocess.run([str(exe), "seed-pool", "--exercise", EXERCISE], env=env,
                           capture_output=True, text=True, timeout=600)
    assert f"{EXERCISE} {{'value': 0.5}}: 2 entries (+0)" in again.stdout, again.stdout

    pool = SeedPool(tmp_path / "var" / "grader" / "seed-pool.sqlite", size=2, min_draw=2)
    variant, solution, _ = _sources()
    result = grade(_job(solution, variant, 1), runner=counting,
                   checks_for=course_checks_resolver(None), pool=pool)
    assert (result.outcome, result.score) == ("graded", result.max_score), result.feedback
    assert counting.runs == 1
