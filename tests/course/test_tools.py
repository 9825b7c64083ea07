"""The check and record tools catch what they promise to catch (real subprocesses, real JAX)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from course import cli as course_cli
from course import load_course, submission_for
from course.cli import course
from course.tools import exercise_items
from course.tools.checking import Item, run_item, run_items
from tests.course.conftest import LESSON_04


def item(root: Path, kind: str, slug: str = "") -> Item:
    return Item(load_course(root).lesson("arrays-04"), kind, slug)


def test_validate_passes_on_valid_content(lesson04_course: Path):
    result = CliRunner().invoke(course, ["validate", "--root", str(lesson04_course)])
    assert result.exit_code == 0, result.output
    assert "1 lesson(s), 3 exercise(s)" in result.output


def test_validate_lists_every_problem_with_file_field_and_fix(lesson04_course: Path):
    md = lesson04_course / LESSON_04 / "lesson.md"
    md.write_text(md.read_text().replace("hardware: cpu", "hardware: abacus\ncolour: red"))
    result = CliRunner().invoke(course, ["validate", "--root", str(lesson04_course)])
    assert result.exit_code == 1
    assert f"{LESSON_04}/lesson.md: hardware (line 8): Must be one of: cpu, gpu, tpu." in (
        result.output)
    assert f"{LESSON_04}/lesson.md: colour (line 9): Unknown field." in result.output
    assert "fix: remove `colour`" in result.output
    assert "2 problems: the content is not valid" in result.output


def test_unknown_lesson_is_a_clear_usage_error(lesson04_course: Path):
    result = CliRunner().invoke(course, ["check", "--root", str(lesson04_course),
                                         "--lesson", "arrays-77"])
    assert result.exit_code == 2 and "no lesson 'arrays-77'; the lessons are: arrays-04" in (
        result.output)


def test_a_broken_command_module_fails_loudly_and_only_itself(monkeypatch: pytest.MonkeyPatch,
                                                              lesson04_course: Path):
    """Every command ships with the package: a real ImportError is a bug to see, not a
    command to hide (issue 14); the group and the other commands still work."""
    monkeypatch.setitem(course_cli.LAZY, "build", ("course.no_such_module.cli:build", "Build."))
    runner = CliRunner()
    assert runner.invoke(course, ["--help"]).exit_code == 0
    result = runner.invoke(course, ["build"])
    assert result.exit_code == 1 and isinstance(result.exception, ModuleNotFoundError)
    assert runner.invoke(course, ["validate", "--root", str(lesson04_course)]).exit_code == 0


@pytest.mark.slow
def test_check_fails_when_printed_output_drifts_from_the_receipt(lesson04_course: Path):
    main = lesson04_course / LESSON_04 / "code/main.py"
    main.write_text(main.read_text().replace('print("Set:", y)', 'print("Set now:", y)'))
    result = CliRunner().invoke(course, ["check", "--root", str(lesson04_course), "--kind",
                                         "main"])
    assert result.exit_code == 1
    assert "FAIL arrays-04/main" in result.output
    assert "-Set: [ 1. 20.  3.  4.]" in result.output
    assert "+Set now: [ 1. 20.  3.  4.]" in result.output
    assert "1 of 1 item(s) failed" in result.output


@pytest.mark.slow
def test_record_rewrites_the_receipt_and_figure(lesson04_course: Path):
    folder = lesson04_course / LESSON_04
    main = folder / "code/main.py"
    main.write_text(main.read_text().replace('print("Set:", y)', 'print("Set now:", y)'))
    (folder / "figure/figure.png").unlink()
    result = CliRunner().invoke(course, ["record", "--root", str(lesson04_course), "--lesson",
                                         "arrays-04"])
    assert result.exit_code == 0, result.output
    receipt = json.loads((folder / "receipt.json").read_text())
    assert receipt["output"].splitlines() == [
        "Original: [1. 2. 3. 4.]", "Set now: [ 1. 20.  3.  4.]", "Add: [6. 2. 8. 4.]",
        "PASS: arrays-04"]
    assert receipt["provenance"]["jax"] == "0.10.2"
    assert receipt["provenance"]["backend"] == "cpu"
    assert (folder / "figure/figure.png").stat().st_size > 1000
    assert run_item(item(lesson04_course, "main")).ok


@pytest.mark.slow
def test_record_keeps_the_receipt_when_main_py_fails(lesson04_course: Path):
    folder = lesson04_course / LESSON_04
    before = (folder / "receipt.json").read_text()
    main = folder / "code/main.py"
    main.write_text(main.read_text() + "raise SystemExit(3)\n")
    result = CliRunner().invoke(course, ["record", "--root", str(lesson04_course)])
    assert result.exit_code == 1 and "receipt.json kept" in result.output
    assert (folder / "receipt.json").read_text() == before


@pytest.mark.slow
@pytest.mark.usefixtures("warm_runs")
def test_figure_check_compares_data_with_the_record(lesson04_course: Path):
    data_path = lesson04_course / LESSON_04 / "figure/data.json"
    record = json.loads(data_path.read_text())
    record["data"]["values"][1][1] = 21.0
    data_path.write_text(json.dumps(record))
    result = run_item(item(lesson04_course, "figure"))
    assert not result.ok
    assert "data.values[1][1]: 21.0 recorded, 20.0 now" in result.detail


@pytest.mark.slow
@pytest.mark.usefixtures("warm_runs")
def test_starter_that_scores_full_marks_is_caught(lesson04_course: Path):
    exercise = lesson04_course / LESSON_04 / "exercises/mask-tail"
    shutil.copy(exercise / "solution.py", exercise / "starter.py")
    result = run_item(item(lesson04_course, "starter", "mask-tail"))
    assert not result.ok and "the unchanged starter scores 10/10, not 0" in result.detail


@pytest.mark.slow
@pytest.mark.usefixtures("warm_runs")
def test_starter_failing_outside_a_todo_line_is_caught(lesson04_course: Path):
    starter = lesson04_course / LESSON_04 / "exercises/mask-tail/starter.py"
    starter.write_text("masked = x.reshape(3)\n" + starter.read_text())
    result = run_item(item(lesson04_course, "starter", "mask-tail"))
    assert not result.ok and "a line without a TODO" in result.detail
    assert "masked = x.reshape(3)" in result.detail


@pytest.mark.slow
@pytest.mark.usefixtures("warm_runs")
def test_wrong_reference_solution_is_caught(lesson04_course: Path):
    solution = lesson04_course / LESSON_04 / "exercises/mask-tail/solution.py"
    solution.write_text("def mask_tail(x):\n"
                        "    tail = jnp.arange(x.shape[0]) >= x.shape[0] - {{n}}\n"
                        "    return jnp.where(tail, 0., x)\n")
    result = run_item(item(lesson04_course, "solution", "mask-tail"))
    assert not result.ok
    assert "reference solution {'n': 2} scores 9/10" in result.detail
    assert "Use `.at[...]`: " in result.detail and "makes no indexed update" in result.detail


@pytest.mark.slow
@pytest.mark.usefixtures("warm_runs")
def test_checks_that_reward_a_hardcoded_answer_are_caught(lesson04_course: Path):
    """With the same input every time, typing in the printed values would pass."""
    checks = lesson04_course / LESSON_04 / "exercises/fixed-shape-mask/checks.py"
    text = checks.read_text()
    fixed = ('    x = np.array([1.0, 2.0, 3.0, 4.0], np.float32)\n'
             '    return [Call("x", (x,)), Call("x again", (x,), "random")]\n')
    checks.write_text(text[:text.index("    t = params")] + fixed)
    hardcoded = run_item(item(lesson04_course, "hardcoded", "fixed-shape-mask"))
    assert hardcoded.ok is False
    assert "a hard-coded answer scores full marks (8/8)" in hardcoded.detail
    assert run_item(item(lesson04_course, "solution", "fixed-shape-mask")).ok


@pytest.mark.slow
@pytest.mark.usefixtures("warm_runs")
def test_hardcoded_and_other_variant_answers_score_below_full(lesson04_course: Path):
    for kind in ("hardcoded", "variant"):
        result = run_item(item(lesson04_course, kind, "mask-tail"))
        assert result.ok, result.detail
    assert "the {'n': 2} answer graded as {'n': 1} scores" in result.detail


def test_items_side_by_side_share_one_run_of_their_reference(lesson04_course: Path,
                                                             monkeypatch: pytest.MonkeyPatch):
    """The starter and the hard-coded answer both grade against the first variant's reference
    at the check's seed; started together, the second waits for the first's run of it."""
    ran: list[str] = []
    harness = exercise_items._harness

    def counted(code: str, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        ran.append(code)
        return harness(code, *args, **kwargs)

    monkeypatch.setattr(exercise_items, "_harness", counted)
    monkeypatch.setattr(exercise_items, "_REFERENCES", {})
    items = [item(lesson04_course, kind, "mask-tail") for kind in ("starter", "hardcoded")]
    results = run_items(items, workers=2)
    assert all(r.ok for r in results), [r.detail for r in results]
    lesson = items[0].lesson
    exercise = next(e for e in lesson.exercises if e.slug == "mask-tail")
    reference = submission_for(lesson, exercise,
                               exercise.for_variant(exercise.variants[0]).solution_code)
    assert ran.count(reference) == 1 and len(ran) == 3, len(ran)


def test_one_lesson_can_be_worked_on_while_another_is_broken(content_copy: Path):
    other = content_copy / "phases/01-arrays/01-jax-numpy-arrays-vs-numpy/lesson.md"
    other.write_text(other.read_text().replace("minutes:", "minuets:", 1))
    runner = CliRunner()
    assert runner.invoke(course, ["validate", "--root", str(content_copy)]).exit_code == 1
    result = runner.invoke(course, ["check", "--root", str(content_copy), "--lesson",
                                    "arrays-04", "--kind", "build"])
    assert result.exit_code == 0, result.output
    assert "problem(s) elsewhere in the content" in result.output
    assert "pass arrays-04/build" in result.output
    broken = runner.invoke(course, ["check", "--root", str(content_copy), "--lesson",
                                    "arrays-01"])
    assert broken.exit_code == 1 and "minuets" in broken.output


@pytest.mark.slow
def test_check_reuses_passes_until_an_input_changes(lesson04_course: Path,
                                                    private_check_cache: Path):
    """The no-change `course check` runs nothing; a changed lesson file runs its items again,
    a failure is never cached, and --no-cache runs everything."""
    runner = CliRunner()
    args = ["check", "--root", str(lesson04_course), "--kind", "main", "--kind", "build"]
    first = runner.invoke(course, args)
    assert first.exit_code == 0, first.output
    assert "pass arrays-04/main" in first.output and "(cached)" not in first.output
    assert private_check_cache.is_file()

    again = runner.invoke(course, args)
    assert again.exit_code == 0, again.output
    assert "pass (cached) arrays-04/main" in again.output
    assert "pass (cached) arrays-04/build" in again.output
    assert "2 unchanged since they passed" in again.output

    forced = runner.invoke(course, [*args, "--no-cache"])
    assert forced.exit_code == 0 and "(cached)" not in forced.output

    main = lesson04_course / LESSON_04 / "code/main.py"
    main.write_text(main.read_text().replace('print("Set:", y)', 'print("Set now:", y)'))
    drifted = runner.invoke(course, args)
    assert drifted.exit_code == 1 and "FAIL arrays-04/main" in drifted.output
    assert "pass (cached)" not in drifted.output  # the lesson changed: both items ran
    assert runner.invoke(course, args).exit_code == 1  # a failure is never cached


def test_check_cache_key_follows_content_checks_and_versions(lesson04_course: Path,
                                                             monkeypatch: pytest.MonkeyPatch):
    from course.tools import check_cache

    course_ = load_course(lesson04_course)
    lesson = course_.lesson("arrays-04")
    pairs = [("arrays-04/main", lesson), ("arrays-04/build", lesson)]
    keys = check_cache.item_keys(course_, pairs)
    assert keys == check_cache.item_keys(course_, pairs)  # stable
    assert keys["arrays-04/main"] != keys["arrays-04/build"]  # per item

    shared = lesson04_course / "course.yaml"
    shared.write_text(shared.read_text() + "\n")
    assert check_cache.item_keys(course_, pairs) != keys  # a shared content file
    shared.write_text(shared.read_text()[:-1])
    assert check_cache.item_keys(course_, pairs) == keys

    monkeypatch.setattr(check_cache, "checks_hash", lambda: "other checks or versions")
    assert check_cache.item_keys(course_, pairs) != keys


def test_the_build_runs_only_when_it_is_not_main_pys_first_statements(content_copy: Path):
    """The steps appended are arrays-01's main.py up to its last line: main.py's run shows
    they run, so the ``build`` item runs nothing. Code between two steps that a later step
    needs makes the build a program of its own: it runs, and fails as a learner's would."""
    lesson = load_course(content_copy).lesson("arrays-01")
    proven = run_item(Item(lesson, "build"))
    assert proven.ok and proven.seconds == 0.0, proven.detail
    assert "are code/main.py's first" in proven.detail

    main = lesson.main_path
    main.write_text(main.read_text().replace(
        "# region step-2\n", "shared = 1\n# region step-2\nassert shared == 1\n", 1))
    changed = load_course(content_copy).lesson("arrays-01")
    ran = run_item(Item(changed, "build"))
    assert not ran.ok and ran.seconds > 0 and "NameError" in ran.detail, ran.detail
