"""load_course(): the model built from lesson 04, and broken content files named precisely."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from course import ContentError, Problem, load_course, submission_for
from course.regions import parse_regions
from tests.course.conftest import LESSON_04


def problems_of(root: Path) -> list[Problem]:
    with pytest.raises(ContentError) as info:
        load_course(root)
    assert str(info.value).startswith(f"{len(info.value.problems)} problem")
    return info.value.problems


def find(problems: list[Problem], file: str, where: str, message: str) -> Problem:
    for problem in problems:
        if problem.file == file and where in problem.where and message in problem.message:
            return problem
    listing = "\n".join(str(p) for p in problems)
    raise AssertionError(f"no problem {file} / {where} / {message!r} among:\n{listing}")


def test_lesson_04_loads_into_the_model(lesson04_course: Path):
    course = load_course(lesson04_course)
    lesson = course.lesson("arrays-04")
    assert lesson is not None
    assert lesson.relpath == LESSON_04
    assert [s.region for s in lesson.steps] == ["step-1", "step-2", "step-3"]
    assert lesson.steps[1].code == "y = x.at[1].set(20.)\nz = x.at[jnp.array([0, 2])].add(5.)"
    assert {e.id for e in lesson.exercises} == {
        "arrays-04.exercise.mask-tail", "arrays-04.exercise.matrix-column",
        "arrays-04.exercise.fixed-shape-mask"}
    assert [e.kind for e in lesson.exercises] == ["exercise", "practice", "challenge"]
    assert lesson.checkpoint.id == "arrays-04.checkpoint"
    # Parametrised by the index: the model holds the default variant (i=1).
    assert len(lesson.checkpoint.choices) == 5 and lesson.checkpoint.correct_keys == ("a",)
    assert "x.at[1].set(20.)" in lesson.checkpoint.question
    last = lesson.checkpoint.for_variant({"i": -1})
    assert last.correct_keys == ("e",) and "x.at[-1].set(20.)" in last.question
    assert last.choice("b").text.startswith("x now holds 20 at index -1")
    assert any("einsum" in s.body_md and "$$" in s.body_md for s in lesson.sections)
    assert lesson.receipt is not None and lesson.receipt.output.endswith("PASS: arrays-04\n")
    assert lesson.figure.provenance is not None and lesson.figure.provenance.jax == "0.10.2"
    assert {e.slug for e in lesson.experiments} >= {
        "name-rebinding", "repeated-integer-contributions", "out-of-bounds-defaults",
        "index-modes", "duplicate-indices", "mask-under-jit", "negative-indices"}
    assert course.phases[0].project is not None
    assert course.phases[0].project.id == "project.arrays-audit"


def test_build_steps_are_the_regions_of_main_py_not_copies(lesson04_course: Path):
    main = lesson04_course / LESSON_04 / "code/main.py"
    main.write_text(main.read_text().replace("y = x.at[1].set(20.)", "y = x.at[1].set(21.)"))
    lesson = load_course(lesson04_course).lesson("arrays-04")
    assert "set(21.)" in lesson.steps[1].code
    assert "set(21.)" in lesson.cumulative_code


def test_submission_is_main_py_with_the_exercise_code_appended(lesson04_course: Path):
    lesson = load_course(lesson04_course).lesson("arrays-04")
    exercise = lesson.exercises[0]
    text = submission_for(lesson, exercise, exercise.solution_code)
    assert text.startswith(lesson.main_code.rstrip("\n"))
    assert text.rstrip().endswith(exercise.solution_code.rstrip())
    compile(text, "main.py", "exec")


def test_the_packaged_course_is_valid():
    """The whole course as committed: its phases in order, lessons in phase and lesson order."""
    course = load_course()
    assert [p.id for p in course.phases] == ["01-arrays", "02-transformations",
                                             "03-randomness", "04-parallelism"]
    assert [x.id for x in course.lessons()] == [
        "arrays-01", "arrays-02", "arrays-03", "arrays-04", "transforms-01", "transforms-02",
        "transforms-03", "transforms-04", "randomness-01", "randomness-02", "randomness-03",
        "randomness-04", "parallel-01", "parallel-02", "parallel-03", "parallel-04"]


def test_course_imports_without_flask_or_a_database():
    code = ("import sys, course; course.load_course; "
            "bad = {'flask', 'sqlalchemy', 'jax'} & set(sys.modules); "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


MD = f"{LESSON_04}/lesson.md"


def test_unknown_field_names_file_field_and_line(content_copy: Path):
    edit(content_copy / MD, "minutes: 45\n", "minutes: 45\nminuets: 45\n")
    problem = find(problems_of(content_copy), MD, "minuets", "Unknown field")
    assert re.search(r"\(line \d+\)", problem.where)
    assert "remove `minuets`" in problem.fix


def test_missing_choice_field(content_copy: Path):
    edit(content_copy / MD, "      feedback: >-\n        JAX arrays", "      fb: >-\n        JAX")
    problem = find(problems_of(content_copy), MD, "checkpoint.choices[2].feedback",
                   "Missing data for required field")
    assert problem.fix == "add the required field `feedback`"


def test_choice_without_correct_or_correct_when(content_copy: Path):
    edit(content_copy / MD, "      correct: false\n", "")
    problem = find(problems_of(content_copy), MD, "checkpoint.choices",
                   "choice b: give either `correct` or `correct_when`")
    assert "correct_when: {name: [values]}" in problem.fix


def test_too_few_choices(content_copy: Path):
    text = (content_copy / MD).read_text()
    start = text.index("    - key: b\n")
    end = text.index("  explanation: >-\n    x.at[{{i}}]")
    (content_copy / MD).write_text(text[:start] + text[end:])
    find(problems_of(content_copy), MD, "checkpoint.choices",
         "needs 3 to 5 choices, this one has 2")


def test_wrong_type(content_copy: Path):
    edit(content_copy / MD, "minutes: 45", "minutes: forty-five")
    problem = find(problems_of(content_copy), MD, "minutes", "Not a valid integer")
    assert "whole number" in problem.fix


def test_yaml_syntax_error_names_the_line_in_lesson_md(content_copy: Path):
    edit(content_copy / MD, "prerequisites: [arrays-03]", "prerequisites: [arrays-03")
    problem = find(problems_of(content_copy), MD, "line", "YAML syntax error")
    line = int(problem.where.split()[1])
    lines = (content_copy / MD).read_text().splitlines()
    assert "prerequisites" in lines[line - 1] or "prerequisites" in lines[line - 2]


def test_missing_region(content_copy: Path):
    main = content_copy / LESSON_04 / "code/main.py"
    edit(main, "# region step-2\n", "")
    edit(main, "z = x.at[jnp.array([0, 2])].add(5.)\n# endregion\n",
         "z = x.at[jnp.array([0, 2])].add(5.)\n")
    problem = find(problems_of(content_copy), MD, "steps[1].region",
                   "region `step-2` is not in code/main.py")
    assert "# region step-2" in problem.fix


def test_region_without_a_step(content_copy: Path):
    main = content_copy / LESSON_04 / "code/main.py"
    edit(main, 'print("PASS: arrays-04")', '# region step-9\nw = 1\n# endregion\n'
         'print("PASS: arrays-04")')
    find(problems_of(content_copy), f"{LESSON_04}/code/main.py", "line 18",
         "region `step-9` has no step")


def test_unclosed_region():
    regions, errors = parse_regions("# region a\nx = 1\n")
    assert regions == {} and "never closed" in errors[0].message and errors[0].line == 1


def test_missing_checks_py(content_copy: Path):
    (content_copy / LESSON_04 / "exercises/mask-tail/checks.py").unlink()
    problem = find(problems_of(content_copy), f"{LESSON_04}/exercises/mask-tail/checks.py", "",
                   "missing checks.py")
    assert "NAMES" in problem.fix


def test_checks_py_without_names(content_copy: Path):
    checks = content_copy / LESSON_04 / "exercises/mask-tail/checks.py"
    edit(checks, "EXERCISE = FunctionExercise(", "SPEC = FunctionExercise(")
    find(problems_of(content_copy), f"{LESSON_04}/exercises/mask-tail/checks.py", "",
         "NAMES must be a non-empty tuple")


def test_function_exercise_without_calls(content_copy: Path):
    checks = content_copy / LESSON_04 / "exercises/mask-tail/checks.py"
    edit(checks, "def calls(params", "def hidden_inputs(params")
    find(problems_of(content_copy), f"{LESSON_04}/exercises/mask-tail/checks.py", "",
         "EXERCISE must be a FunctionExercise")


def test_variant_field_must_be_a_declared_parameter(content_copy: Path):
    edit(content_copy / MD, "last {{n}} element(s)", "last {{count}} element(s)")
    find(problems_of(content_copy), MD, "exercises[0]", "`{{count}}` is not a parameter")


def test_missing_prerequisite_and_duplicate_ids(content_copy: Path):
    edit(content_copy / MD, "prerequisites: [arrays-03]", "prerequisites: [arrays-99]")
    edit(content_copy / MD, "  - slug: matrix-column\n", "  - slug: mask-tail\n")
    problems = problems_of(content_copy)
    find(problems, MD, "prerequisites[0]", "no lesson has id `arrays-99`")
    find(problems, MD, "exercises[1].slug", "slug `mask-tail` is used twice")


def test_missing_experiment_file_and_unlisted_one(content_copy: Path):
    folder = content_copy / LESSON_04 / "experiments"
    (folder / "negative-indices.py").rename(folder / "negative-index.py")
    problems = problems_of(content_copy)
    find(problems, f"{LESSON_04}/experiments/negative-indices.py", "", "missing experiment file")
    find(problems, f"{LESSON_04}/experiments/negative-index.py", "", "not listed")


def test_every_problem_of_every_file_is_reported_at_once(content_copy: Path):
    edit(content_copy / MD, "minutes: 45", "minutes: many")
    edit(content_copy / "course.yaml", "title: JAX Pathways", "title: JAX Pathways\nextra: 1")
    edit(content_copy / "phases/01-arrays/phase.yaml", "number: 1", "number: one")
    problems = problems_of(content_copy)
    find(problems, MD, "minutes", "Not a valid integer")
    find(problems, "course.yaml", "extra", "Unknown field")
    find(problems, "phases/01-arrays/phase.yaml", "number", "Not a valid integer")


def test_every_exercise_text_is_filled_in_for_every_variant() -> None:
    """Guide, plan, hints and reasoning carry ``{{name}}`` fields too: each learner's variant
    fills them in, and no raw field reaches a page (static site or LMS)."""
    course = load_course()
    filled = 0
    for lesson in course.lessons():
        for exercise in lesson.exercises:
            for variant in [None, *exercise.variants]:
                shown = exercise.for_variant(variant)
                texts = (shown.prompt, *shown.guide, *shown.plan, *shown.hints, shown.reasoning,
                         shown.starter_code)
                assert not [t for t in texts if "{{" in t], (exercise.id, variant)
            if exercise.text_templates is not None:
                filled += 1
    assert filled, "the course has exercises whose plan or hints name a parameter"
    exercise = course.exercise("arrays-01.exercise.edit-on-host")[1]
    plans = {exercise.for_variant(v).plan for v in exercise.variants}
    assert len(plans) == len(exercise.variants), "each variant's plan names its own value"


PHASE_02 = "phases/02-transformations"


def test_phase_lesson_prefix_sets_the_lesson_ids(content_copy: Path):
    course = load_course(content_copy)
    lesson = course.lesson("transforms-01")
    assert lesson is not None and lesson.relpath == f"{PHASE_02}/01-jit-and-tracing"
    assert course.lesson("transformations-01") is None
    edit(content_copy / PHASE_02 / "phase.yaml", "lesson_prefix: transforms\n", "")
    problems = problems_of(content_copy)
    problem = find(problems, f"{PHASE_02}/01-jit-and-tracing/lesson.md", "id", "transforms-01")
    assert "transformations-01" in problem.fix
