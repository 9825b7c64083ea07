"""Schemas: strict fields, versions and upgrades, YAML lines, front matter."""

from __future__ import annotations

from course.schemas import CourseSchema, FigureDataSchema, LessonSchema, load_document
from course.schemas.lesson import CheckpointSchema
from course.yamlsource import YamlDoc, parse_yaml, split_front_matter


def load(kind, schema, text, upgrades=None):
    doc, problems = parse_yaml(text, "f.yaml")
    assert not problems
    return load_document(kind, schema, doc, "f.yaml", upgrades)


def test_valid_course_yaml_loads():
    data, problems = load("course", CourseSchema(),
                          "schema: 1\ntitle: T\nversion: '1'\nphases: [01-arrays]\n")
    assert problems == []
    assert data == {"schema": 1, "title": "T", "version": "1", "phases": ["01-arrays"]}


def test_unknown_field_is_rejected_with_its_line_and_the_allowed_fields():
    _, problems = load("course", CourseSchema(),
                       "schema: 1\ntitle: T\nversion: '1'\nphases: [01-arrays]\ncolour: red\n")
    [problem] = problems
    assert problem.where == "colour (line 5)"
    assert problem.message == "Unknown field."
    assert "allowed here: phases, schema, title, version" in problem.fix


def test_all_problems_of_a_file_are_collected():
    _, problems = load("course", CourseSchema(), "schema: 1\nversion: 2\nphases: []\n")
    wheres = {p.where.split(" ")[0] for p in problems}
    assert wheres == {"title", "version", "phases"}


def test_missing_schema_version_names_the_fix():
    _, problems = load("course", CourseSchema(), "title: T\n")
    assert problems[0].message == "no schema version"
    assert "schema: 1" in problems[0].fix


def test_newer_schema_version_is_refused():
    _, problems = load("course", CourseSchema(), "schema: 7\ntitle: T\n")
    assert "newer than this course tool" in problems[0].message


def test_old_version_is_upgraded_through_explicit_steps():
    def rename_name_to_title(data):
        data["title"] = data.pop("name")
        return data

    upgrades = {"course": {0: rename_name_to_title}}
    data, problems = load("course", CourseSchema(),
                          "schema: 0\nname: Old\nversion: '1'\nphases: [01-arrays]\n", upgrades)
    assert problems == []
    assert data["title"] == "Old" and data["schema"] == 1


def test_old_version_without_an_upgrade_step_is_an_error():
    _, problems = load("course", CourseSchema(), "schema: 0\ntitle: T\n", {})
    assert "no upgrade from schema 0" in problems[0].message


def test_unversioned_figure_data_reads_as_version_zero_and_upgrades():
    provenance = {"timestamp": "t", "python": "3.11", "jax": "0.10.2", "jaxlib": "0.10.2",
                  "backend": "cpu", "device_count": 1, "source_sha256": "0" * 64}
    data, problems = load_document("figure-data", FigureDataSchema(),
                                   YamlDoc({"data": [1], "provenance": provenance}, None), "d")
    assert problems == [] and data["schema"] == 1 and data["measured"] is False


def choices(*correct: bool) -> list[dict]:
    return [{"key": "abcdef"[i], "text": "t", "correct": c, "feedback": "f"}
            for i, c in enumerate(correct)]


def test_checkpoint_needs_three_to_five_choices():
    errors = CheckpointSchema().validate({"question": "q", "explanation": "e",
                                          "choices": choices(True, False)})
    assert errors == {"choices": ["a checkpoint needs 3 to 5 choices, this one has 2"]}


def test_checkpoint_needs_exactly_one_correct_choice():
    errors = CheckpointSchema().validate({"question": "q", "explanation": "e",
                                          "choices": choices(True, True, False)})
    assert "exactly one choice must have `correct: true`, found 2 (a, b)" in errors["choices"]
    assert CheckpointSchema().validate({"question": "q", "explanation": "e",
                                        "choices": choices(False, True, False, False)}) == {}


def test_wrong_type_reports_field_path_and_fix():
    text = "schema: 1\nid: arrays-09\norder: four\n"
    _, problems = load("lesson", LessonSchema(), text)
    order = next(p for p in problems if p.where.startswith("order"))
    assert order.where == "order (line 3)"
    assert order.message == "Not a valid integer."
    assert "whole number" in order.fix


def test_yaml_syntax_error_gives_the_file_line():
    _, problems = parse_yaml("a: 1\nb: [1, 2\nc: 3\n", "lesson.md", first_line=2)
    [problem] = problems
    assert problem.file == "lesson.md"
    assert problem.where.startswith("line ")
    assert int(problem.where.split()[1]) >= 3
    assert "YAML syntax error" in problem.message


def test_front_matter_split_and_unclosed_front_matter():
    front, first, body, problems = split_front_matter("---\na: 1\n---\n## T\nx\n", "l.md")
    assert (front, first, body, problems) == ("a: 1\n", 2, "## T\nx\n", [])
    front, _, _, problems = split_front_matter("---\na: 1\n", "l.md")
    assert front is None and "not closed" in problems[0].message
    front, _, _, problems = split_front_matter("# no front matter\n", "l.md")
    assert front is None and problems[0].where == "line 1"


def parametrised(**overrides):
    data = {"params": {"n": [2, 3]}, "question": "x has {{n}} elements; what is x[-1]?",
            "explanation": "x[-1] is x[{{n}} - 1].", "choices": [
                {"key": "a", "text": "x[1]", "correct_when": {"n": [2]}, "feedback": "f"},
                {"key": "b", "text": "x[2]", "correct_when": {"n": [3]}, "feedback": "f"},
                {"key": "c", "text": "an IndexError", "correct": False, "feedback": "f {{n}}"}]}
    data.update(overrides)
    return data


def test_parametrised_checkpoint_with_one_correct_choice_per_variant_is_valid():
    assert CheckpointSchema().validate(parametrised()) == {}


def test_parametrised_checkpoint_needs_exactly_one_correct_choice_in_every_variant():
    errors = CheckpointSchema().validate(parametrised(params={"n": [2, 3, 4]}))
    assert errors == {"choices": [
        "exactly one choice must be correct in every variant; (n=4) has 0"]}
    data = parametrised()
    data["choices"][2] = {**data["choices"][2], "correct": True}
    errors = CheckpointSchema().validate(data)
    assert errors["choices"] == [
        "exactly one choice must be correct in every variant; (n=2) has 2 (a, c)",
        "exactly one choice must be correct in every variant; (n=3) has 2 (b, c)"]


def test_parametrised_checkpoint_problems_are_all_collected():
    data = parametrised(params={"n": [2, 2, True]}, question="{{m}} elements")
    data["choices"][0] = {**data["choices"][0], "correct": True}
    data["choices"][1] = {**data["choices"][1], "correct_when": {"k": [1], "n": [9]}}
    del data["choices"][2]["correct"]
    errors = CheckpointSchema().validate(data)
    assert errors["params"] == ["parameter `n`: values must be numbers or text, not True"]
    assert errors["choices"] == [
        "choice a: give either `correct` or `correct_when`, not both",
        "choice b: correct_when names `k`, which is not a parameter",
        "choice b: correct_when gives a value of `n` that it does not take (2, 2, True)",
        "choice c: give either `correct` or `correct_when`",
        "`{{m}}` is not a declared parameter"]


def test_parametrised_choices_must_read_differently_in_every_variant():
    data = parametrised()
    data["choices"][2] = {**data["choices"][2], "text": "x[{{n}}]"}
    errors = CheckpointSchema().validate(data)
    assert errors["choices"] == ["two choices read the same in variant (n=2)"]


def test_an_exercise_asks_for_one_to_eight_devices():
    from course.devices import device_env
    from course.schemas.lesson import ExerciseSchema

    entry = {"slug": "s", "kind": "exercise", "title": "T", "prompt": "P", "guide": ["g"],
             "plan": ["p"], "reasoning": "r"}
    assert ExerciseSchema().load(entry)["devices"] == 1
    assert ExerciseSchema().load({**entry, "devices": 8})["devices"] == 8
    for bad in (0, 9, "8", True):
        assert "devices" in ExerciseSchema().validate({**entry, "devices": bad})
    assert device_env(1) == {} and device_env(8) == {
        "XLA_FLAGS": "--xla_force_host_platform_device_count=8"}
