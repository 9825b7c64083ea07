"""The compilation cache that only public programs write and every run reads read-only
(grader_worker/compile_cache.py, docs/SANDBOX.md "The compilation cache")."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from course import submission_for
from course.checks import HARNESS_PATH
from grader_worker.compile_cache import PublicProgram, adopt, public_programs
from grader_worker.config import load_config
from grader_worker.limits import Limits
from grader_worker.runner import SandboxRunner
from grader_worker.warm import WarmRunner
from tests.packaged import packaged_course

ENTRY = "jit_add-" + "ab" * 32 + "-cache"
PUBLIC = ("import jax.numpy as jnp\n"
          "x = jnp.arange(16.0).reshape(4, 4)\n"
          "print(float((jnp.tanh(x) @ x.T).sum()))\n")
LEARNER = ("import jax\n"
           "hits = []\n"
           "jax.monitoring.register_event_listener(\n"
           "    lambda name, **_: hits.append(name) if name.endswith('cache_hits') else None)\n"
           + PUBLIC +
           "print('hits', len(hits))\n"
           "import os\n"
           "for attempt in ('planted-cache', '.warmed/x'):\n"
           "    try:\n"
           "        open(os.path.join(os.environ['JAX_COMPILATION_CACHE_DIR'], attempt), 'wb')\n"
           "        print('wrote', attempt)\n"
           "    except OSError as exc:\n"
           "        print('refused', attempt, exc.errno)\n"
           "jax.config.update('jax_persistent_cache_min_compile_time_secs', 0)\n"
           "print(float(jnp.cos(jnp.arange(7.0)).sum()))\n")


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def test_adopt_takes_only_plain_jax_entries_of_bounded_size(tmp_path: Path) -> None:
    """What a warm-up's sandbox left is hostile: links, fifos, folders, odd names and oversized
    files stay behind; an entry already in the cache is not replaced."""
    staging, cache = tmp_path / "staging", tmp_path / "cache"
    staging.mkdir()
    cache.mkdir()
    (staging / ENTRY).write_bytes(b"executable")
    (staging / ("jit_mul-" + "cd" * 32 + "-cache")).symlink_to("/etc/passwd")
    os.mkfifo(staging / ("jit_sub-" + "ef" * 32 + "-cache"))
    (staging / ("jit_div-" + "01" * 32 + "-cache")).mkdir()
    (staging / ("jit_big-" + "23" * 32 + "-cache")).write_bytes(b"x" * 101)
    (staging / "notes.txt").write_bytes(b"not an entry")
    (staging / "jit_old-cache").write_bytes(b"new")
    (cache / "jit_old-cache").write_bytes(b"old")
    assert adopt(staging, cache, max_bytes=100) == 1
    assert (cache / ENTRY).read_bytes() == b"executable"
    assert (cache / ENTRY).stat().st_mode & 0o777 == 0o644
    assert (cache / "jit_old-cache").read_bytes() == b"old"
    assert _files(cache) == {ENTRY, "jit_old-cache"}
    assert adopt(staging, cache, max_entries=0) == 0


def test_only_what_every_learner_has_is_warmed() -> None:
    """Each lesson's main.py on each device count its exercises use, each project's starter;
    never a reference solution, hidden check or counterexample (an answer key)."""
    course = packaged_course()
    programs = public_programs(course)
    sources = {(p.source, p.devices) for p in programs}
    assert len(sources) == len(programs)
    for lesson, exercise in course.gradables():
        public = exercise.starter_code if exercise.standalone else lesson.main_code
        assert (public, exercise.devices) in sources, exercise.id
        solution = exercise.solution_code.strip()
        assert not any(solution and solution in p.source for p in programs), exercise.id
    assert {p.devices for p in programs} >= {1, 8}


@pytest.fixture(scope="module")
def cached_runner(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    var = tmp_path_factory.mktemp("var")
    runner = SandboxRunner(load_config({"PATHWAYS_VAR_DIR": str(var)}), HARNESS_PATH)
    yield runner
    runner.close()


def _contents(cache: Path) -> dict[str, bytes]:
    return {name: (cache / name).read_bytes() for name in _files(cache)
            if (cache / name).is_file()}


@pytest.mark.slow
def test_a_warmed_public_program_is_read_by_runs_that_cannot_write(cached_runner) -> None:
    """The warm-up writes the public program's compilations; a graded run of a submission
    that starts with it, cold or forked from the warm parent, hits them, cannot add, replace
    or mark anything in the cache (it is read-only there), and asking JAX to write changes
    nothing either; a second warm-up of the same program runs nothing."""
    runner: SandboxRunner = cached_runner
    cache = runner.cache
    assert cache is not None and cache.is_dir()
    program = PublicProgram("lesson", PUBLIC, 1)
    warmed = runner.warm_compile_cache([program], Limits())
    assert (warmed.programs, warmed.failed) == (1, ()) and warmed.entries >= 3, warmed
    before = _contents(cache)
    warm = WarmRunner(runner.config, HARNESS_PATH, ceiling=Limits())
    try:
        for kind, out in (("cold", runner.run(LEARNER, (), Limits())),
                          ("warm", warm.run(LEARNER, (), Limits()))):
            stdout = out.stdout.decode()
            assert out.returncode == 0, (kind, out.stderr.decode()[-2000:])
            assert int(stdout.split("hits ", 1)[1].split()[0]) >= 3, (kind, stdout)
            assert "wrote" not in stdout and stdout.count("refused") == 2, (kind, stdout)
            assert _contents(cache) == before, kind
    finally:
        warm.close()
    assert runner.warm_compile_cache([program], Limits()).programs == 0


@pytest.mark.slow
def test_a_lessons_submission_reads_what_the_lessons_main_py_compiled(cached_runner) -> None:
    """With the course's own programs: after warming a lesson's main.py, a learner's whole
    main.py for its exercise (main.py, then their function) compiles less itself."""
    course = packaged_course()
    lesson, exercise = course.exercise("arrays-04.exercise.mask-tail")
    runner: SandboxRunner = cached_runner
    warmed = runner.warm_compile_cache(
        [p for p in public_programs(course) if p.name == lesson.id], Limits())
    assert warmed.failed == () and warmed.entries > 0, warmed
    probe = ("import jax\nhits = []\njax.monitoring.register_event_listener(\n"
             "    lambda name, **_: hits.append(name) if name.endswith('cache_hits') else None)\n")
    source = submission_for(lesson, exercise, exercise.starter_code)
    out = runner.run(probe + source.replace("\n# --- ", "\nprint('hits', len(hits))\n# --- ", 1),
                     (), Limits())
    stdout = out.stdout.decode()
    assert int(stdout.split("hits ", 1)[1].split()[0]) >= warmed.entries // 2, stdout


@pytest.mark.slow
def test_the_warm_runner_warms_from_one_parent_what_any_run_then_reads(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """`pathways seed-pool` on a warm worker: the public programs run forked from one warm
    parent (JAX imported once, not once a program) whose staging mount is writable, on every
    device count they need; a cold run then hits what they compiled and cannot write there,
    neither parent nor staging folder is left, and the marks make a second warm-up run nothing."""
    var = tmp_path_factory.mktemp("warm-var")
    warm = WarmRunner(load_config({"PATHWAYS_VAR_DIR": str(var)}), HARNESS_PATH,
                      ceiling=Limits())
    try:
        programs = [PublicProgram("lesson", PUBLIC, 1), PublicProgram("lesson-8", PUBLIC, 8)]
        warmed = warm.warm_compile_cache(programs, Limits())
        assert (warmed.programs, warmed.failed) == (2, ()) and warmed.entries >= 6, warmed
        assert not list(warm.base.glob("warm-*")) and not list(warm.base.glob("jax-cache-*"))
        out = SandboxRunner.run(warm, LEARNER, (), Limits())  # a cold run, same cache
        stdout = out.stdout.decode()
        assert int(stdout.split("hits ", 1)[1].split()[0]) >= 3, stdout
        assert "wrote" not in stdout, stdout
        assert warm.warm_compile_cache(programs, Limits()).programs == 0
    finally:
        warm.close()


def test_a_cache_folder_that_cannot_be_made_leaves_runs_compiling_themselves(
        tmp_path: Path) -> None:
    """Like the seed pool, the cache only saves time: an unusable folder is logged and runs go
    without it (no bind, no cache settings), instead of the worker failing to start."""
    (tmp_path / "a-file").write_text("")
    config = load_config({"PATHWAYS_VAR_DIR": str(tmp_path / "var"),
                          "PATHWAYS_GRADER_COMPILE_CACHE": str(tmp_path / "a-file" / "cache")})
    runner = SandboxRunner(config, HARNESS_PATH)
    try:
        assert runner.cache is None
        assert runner.warm_compile_cache([PublicProgram("x", PUBLIC, 1)], Limits()).programs == 0
    finally:
        runner.close()
    off = SandboxRunner(load_config({"PATHWAYS_VAR_DIR": str(tmp_path / "var"),
                                     "PATHWAYS_GRADER_COMPILE_CACHE": "off"}), HARNESS_PATH)
    try:
        assert off.cache is None and not (tmp_path / "var" / "grader" / "compile-cache").exists()
    finally:
        off.close()
