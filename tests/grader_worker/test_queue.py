"""Every exercise's reference in the deployed sandbox, and a sample through the real queue,
graded by a real `pathways worker` process.

Every function exercise's reference runs once in the deployed sandbox, warm, filled into a seed
pool by `pathways seed-pool` (conftest's ``course_pool``), and its report, judged by the
grader's algorithm as a learner's run of the same program, scores full marks: each one is
gradable there. (That the reference gives the same report run after run, so a learner's run
of it would too, is `pathways course check`'s, tests/course/test_content_runs.py.)
Whether cheats score less is the content's property, proved for every exercise and variant by
`course check`; here a sample sends its reference, the starter, a hard-coded answer and another
variant's answer through the queue, each worker drawing from a copy of that pool (one run a
submission; another variant's and a project's reference still run beside it), so the verdicts
are shown to survive the transport and both kinds of run: on SQLite with warm runs (the
production fast path) a function exercise with variants and each project, on Redis with cold
ones the function exercise. (Projects graded by cold workers are the end-to-end tests': the
demo's and the local stack's workers run cold. A grading with an empty pool, reference and
learner both run, is every other worker's in the suite: their pools start empty.)
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from pathlib import Path

import pytest
from conftest import CoursePool
from grader_helpers import collect, drawing_from, start_worker, worker_env

from course import load_course, submission_for
from course.checks import hardcoded_source, load_suite, read_values
from course.checks.grading import Prepared, judge, prepare, score
from course.variants import variant_space
from grader_worker.compile_cache import public_programs
from grader_worker.config import load_config
from grader_worker.seedpool.store import calls_digest
from grader_worker.target import GradingTarget
from grader_worker.worker import course_checks_resolver
from grading_contract.queues import Queues
from grading_contract.result import result_from_dict
from tests.packaged import packaged_course


def _sample(course, *, projects: bool = True) -> set[str]:  # noqa: ANN001
    """The exercises whose cheats also go through the queue: the first function exercise with
    variants and (``projects``) every project (graded by stages, not by a function)."""
    function = next(e.id for _, e in course.gradables() if e.function and len(e.variants) > 1)
    if not projects:
        return {function}
    found = {p.project.exercise.id for p in course.phases if p.project and p.project.exercise}
    assert found, "the course has no gradable project"
    return {function} | found


Pooled = dict[str, tuple[int, str, bytes]]
"""exercise id -> (seed, digest of the calls the fill drew, the reference's report)."""


def _pooled(pool: CoursePool) -> Pooled:
    with sqlite3.connect(pool.path) as db:
        rows = db.execute("SELECT exercise_id, seed, calls_sha, report FROM pool").fetchall()
    return {e: (int(seed), sha, bytes(report)) for e, seed, sha, report in rows}


def _from_pool(entry: tuple[int, str, bytes], target: GradingTarget) -> Prepared:
    """The pooled reference's grading inputs in the exercise's first variant (the report read
    as the trusted side reads it)."""
    seed, _, report = entry
    variant = dict(next(iter(variant_space(target.params or {}))))
    captured = read_values(report)
    return prepare(load_suite(target.checks_path), variant, seed, target.reference,
                   lambda *_: captured)


def _submissions(course, pooled: Pooled, sample: set[str]):  # noqa: ANN001, ANN202
    """(kind, exercise, variant, whole main.py) of ``sample``; kind "full" must score full
    marks, every other kind less. The hard-coded answer types in the pooled reference's
    outputs on the first (example) input, which no seed changes."""
    checks_for = course_checks_resolver(None)
    for lesson, exercise in course.gradables():
        if exercise.id not in sample:
            continue
        variants = exercise.variants or [{}]
        mine = variants[-1]
        yield "full", exercise, variants[0], submission_for(
            lesson, exercise, exercise.for_variant(variants[0]).solution_code)
        yield "starter", exercise, mine, submission_for(
            lesson, exercise, exercise.for_variant(mine).starter_code)
        if exercise.function:
            expected = _from_pool(pooled[exercise.id], checks_for(exercise.id)).expected
            assert expected is not None
            yield "hardcoded", exercise, variants[0], submission_for(
                lesson, exercise, hardcoded_source(load_suite(exercise.checks_path).function,
                                                   expected))
        if len(variants) > 1:
            yield "full", exercise, mine, submission_for(
                lesson, exercise, exercise.for_variant(mine).solution_code)
            yield "other-variant", exercise, mine, submission_for(
                lesson, exercise, exercise.for_variant(variants[0]).solution_code)


def _grade_sample(tmp_path: Path, redis_url: str | None, pool: CoursePool, *,
                  warm: bool, projects: bool) -> None:
    prefix = f"test-{uuid.uuid4().hex[:8]}-"
    env = drawing_from(worker_env(tmp_path / "var", prefix, redis_url, warm=warm), pool.path)
    queues = Queues(load_config(env))
    course = load_course(load_config(env).course_root)
    pooled = _pooled(pool)
    expected: dict[str, tuple[str, dict]] = {}
    sent: dict[str, dict] = {}
    sample = _sample(course, projects=projects)
    for kind, exercise, variant, source in _submissions(course, pooled, sample):
        sid = f"{exercise.id}:{kind}:{len(expected)}"
        expected[sid] = (kind, variant)
        sent[sid] = {"submission_id": sid, "attempt": 1, "exercise_id": exercise.id,
                     "source": source, "limits": {}, "enqueued_at": time.time(),
                     "variant": variant}
        queues.enqueue_job(sent[sid])
    kinds = {kind for kind, _ in expected.values()}
    assert {"full", "starter", "hardcoded", "other-variant"} <= kinds, kinds
    assert {sid.split(":", 1)[0] for sid in expected} == sample
    proc = start_worker(env, tmp_path / "worker.log", concurrency=2)
    try:
        got = collect(queues, set(expected), timeout=60 + 12 * len(expected), retry=sent)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    log = (tmp_path / "worker.log").read_text()
    assert set(got) == set(expected), f"missing results; worker log:\n{log[-3000:]}"
    for sid, (kind, variant) in expected.items():
        result = result_from_dict(got[sid])
        exercise = course.exercise(result.exercise_id)[1]
        assert result.variant == variant and result.checks_hash == exercise.checks_hash
        assert result.course_version == course.version
        if kind == "full":
            assert result.outcome == "graded", (sid, result.feedback, result.stderr)
            assert result.score == result.max_score > 0, (sid, result.checks)
        else:
            assert result.outcome != "infrastructure_error", (sid, result.feedback)
            assert result.score < result.max_score, (sid, result.checks)
        if exercise.function:
            assert result.seed is not None
            if variant == (exercise.variants or [{}])[0]:  # drawn: the learner's run only
                assert result.seed == pooled[exercise.id][0], sid
        assert result.environment.device_count >= 1
    assert '"worker stopped"' in log or "worker stopped" in log


@pytest.mark.slow
def test_every_reference_runs_in_the_deployed_sandbox_and_scores_full_marks(
        course_pool: CoursePool) -> None:
    course = packaged_course()
    checks_for = course_checks_resolver(None)
    with sqlite3.connect(course_pool.path) as db:
        (rows,) = db.execute("SELECT COUNT(*) FROM pool").fetchone()
    functions = {e.id for _, e in course.gradables() if e.function}
    assert rows == len(functions), course_pool.output  # one entry each: the first variant
    pooled = _pooled(course_pool)
    assert set(pooled) == functions, course_pool.output
    for exercise_id, entry in sorted(pooled.items()):
        target = checks_for(exercise_id)
        prepared = _from_pool(entry, target)
        variant = prepared.variant
        assert f"{exercise_id} {variant or ''}: 1 entries (+1)" in course_pool.output
        assert target.reference is not None and prepared.expected is not None
        assert calls_digest(prepared.calls) == entry[1], exercise_id
        outcomes = judge(load_suite(target.checks_path), prepared.expected, prepared,
                         target.reference(variant))
        failed = [f"{o.name}: {o.feedback}" for o in outcomes if o.status != "passed"]
        assert not failed and score(outcomes) > 0, (exercise_id, failed)
    # Before the references, the command warmed the host's compilation cache with every
    # public program (each lesson's main.py, each project's starter), all cleanly.
    programs = len(public_programs(course))
    cache = course_pool.path.parent / "compile-cache"
    assert f"compile cache {cache}: {programs} public programs run, +" in course_pool.output
    assert len(list((cache / ".warmed").iterdir())) == programs


@pytest.mark.slow
def test_sample_through_sqlite_queue_warm_and_drawn_from_the_pool(
        tmp_path: Path, course_pool: CoursePool) -> None:
    _grade_sample(tmp_path, None, course_pool, warm=True, projects=True)


@pytest.mark.slow
@pytest.mark.redis
def test_sample_through_redis_queue_cold_and_drawn_from_the_pool(
        tmp_path: Path, redis_url: str, course_pool: CoursePool) -> None:
    _grade_sample(tmp_path, redis_url.rsplit("/", 1)[0] + "/11", course_pool, warm=False,
                  projects=False)
