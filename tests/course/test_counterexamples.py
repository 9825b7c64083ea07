"""`course check`'s counterexample items: declared bounds are read, enforced and planned."""

from __future__ import annotations

from pathlib import Path

import pytest

from course import submission_for
from course.checks import ChecksError
from course.tools.checking import plan
from course.tools.exercise_items import (
    at_most,
    check_starter,
    counterexamples,
    learner_facing,
    read_counterexample,
)
from tests.packaged import packaged_course

pytestmark = pytest.mark.usefixtures("warm_runs")


def test_check_titles_a_learner_reads_are_plain_sentences() -> None:
    assert learner_facing("fit_step is jitted once per problem shape, not once per step")
    assert not learner_facing("`fit_step` matches the reference")
    assert not learner_facing("fit_step fit_step is jitted once per problem shape")
    assert not learner_facing("sharded_step its compiled program holds all-reduce")
    assert learner_facing("sharded_step compiles to a program with all-reduce")


def test_every_gradable_has_counterexamples_with_bounds_below_full() -> None:
    course = packaged_course()
    for _, exercise in course.gradables():
        found = counterexamples(exercise)
        assert found, f"{exercise.id} ships no counterexamples/*.py"
        for cheat in found:
            assert 0 <= cheat.bound < exercise.max_points and cheat.why, (exercise.id, cheat)
    ids = {item.id for item in plan(course) if item.kind == "counterexample"}
    assert "transforms-03/counterexample/batched-scores/decoy-def" in ids
    assert "project.transforms-fit/counterexample/no-jit" in ids


def test_a_counterexample_declares_its_bound_and_why(tmp_path: Path) -> None:
    _, exercise = packaged_course().exercise("arrays-04.exercise.mask-tail")
    path = tmp_path / "cheat.py"
    path.write_text("def mask_tail(x):\n    return x\n")
    with pytest.raises(ChecksError, match="max-score"):
        read_counterexample(path, exercise)
    path.write_text(f"# max-score: {exercise.max_points:g}\n# why: none\ndef f():\n    pass\n")
    with pytest.raises(ChecksError, match="not below"):
        read_counterexample(path, exercise)
    path.write_text("# max-score: 3.5\n# why: the reason\ndef f():\n    pass\n")
    cheat = read_counterexample(path, exercise)
    assert (cheat.bound, cheat.why, cheat.name) == (3.5, "the reason", "cheat")


@pytest.mark.slow
def test_an_answer_above_its_bound_fails_the_item(tmp_path: Path) -> None:
    """The reference graded as if it were a counterexample bounded at 5: the item fails and
    says by how much (what `course check` reports for a counterexample the checks reward)."""
    lesson, exercise = packaged_course().exercise("arrays-04.exercise.mask-tail")
    variant = exercise.variants[0]
    program = submission_for(lesson, exercise, exercise.for_variant(variant).solution_code)
    ok, detail, _ = at_most(lesson, exercise, tmp_path / "a", 120, program, "the reference",
                            5.0, variant)
    assert not ok and "more than its bound 5" in detail
    ok, detail, _ = at_most(lesson, exercise, tmp_path / "b", 120, program, "the reference",
                            exercise.max_points, variant)
    assert ok and f"{exercise.max_points:g}/{exercise.max_points:g}" in detail


def test_every_gradable_has_a_starter_item_that_content_runs_grades() -> None:
    """Each exercise's and project's starter is graded by its `course check` item, which
    tests/course/test_content_runs.py runs for the whole course (not repeated here)."""
    course = packaged_course()
    starters = {(item.lesson.id, item.slug) for item in plan(course) if item.kind == "starter"}
    for lesson, exercise in course.gradables():
        assert (lesson.id, exercise.slug) in starters, exercise.id


@pytest.mark.slow
def test_an_untouched_starter_scores_zero_with_plain_check_titles(tmp_path: Path) -> None:
    """What `course check`'s starter item proves: the unchanged starter scores 0 (a check it
    passes earns nothing), every check visible and titled in plain words."""
    lesson, exercise = packaged_course().exercise("arrays-04.exercise.mask-tail")
    ok, detail, _ = check_starter(lesson, exercise, tmp_path, 120)
    assert ok and "scores 0/" in detail, detail
