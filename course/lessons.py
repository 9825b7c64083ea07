"""Load one lesson folder into a ``Lesson``, collecting every problem on the way."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from course import pysource
from course.checks.runner import ChecksError, load_suite
from course.errors import Problem, relative
from course.model import (
    BuildStep,
    Checkpoint,
    Choice,
    Exercise,
    Experiment,
    Figure,
    Lesson,
    Provenance,
    Receipt,
    Reference,
    Section,
)
from course.regions import parse_regions
from course.schemas import FigureDataSchema, LessonSchema, ReceiptSchema, load_document
from course.variants import default_variant, fields, render
from course.yamlsource import YamlDoc, parse_yaml, split_front_matter

HEADING = re.compile(r"^##\s+(?P<title>\S.*?)\s*$")


class _Collector:
    """Problems for files inside one content root, with paths shown relative to it."""

    def __init__(self, root: Path, problems: list[Problem]) -> None:
        self.root = root
        self.problems = problems

    def add(self, path: Path, where: str, message: str, fix: str) -> None:
        self.problems.append(Problem(relative(path, self.root), where, message, fix))

    def read(self, path: Path, what: str, fix: str) -> str | None:
        if not path.is_file():
            self.add(path, "", f"missing {what}", fix)
            return None
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            self.add(path, "", f"cannot read {what}: {exc}", "save it as UTF-8 text")
            return None

    def python(self, path: Path, what: str, fix: str) -> str | None:
        source = self.read(path, what, fix)
        if source is None:
            return None
        try:
            pysource.parse(source, filename=str(path))
        except SyntaxError as exc:
            self.add(path, f"line {exc.lineno}", f"Python syntax error: {exc.msg}",
                     "fix the Python at that line")
            return None
        return source


def parse_sections(body: str, path: Path, out: _Collector) -> tuple[Section, ...]:
    """Split the Markdown body into ``## Title`` sections."""
    sections: list[Section] = []
    title: str | None = None
    lines: list[str] = []
    for number, line in enumerate(body.splitlines(), start=1):
        match = HEADING.match(line)
        if match:
            if title is not None:
                sections.append(Section(title, "\n".join(lines).strip()))
            title, lines = match["title"], []
        elif title is None and line.strip():
            out.add(path, "body", f"text before the first `## ` heading: {line.strip()[:60]!r}",
                    "start the Understand prose with a `## Section title` line")
            title, lines = "", []
        else:
            lines.append(line)
        del number
    if title is not None:
        sections.append(Section(title, "\n".join(lines).strip()))
    if not sections:
        out.add(path, "body", "the lesson has no Understand sections",
                "write the Understand prose below the front matter as `## Title` sections")
    for section in sections:
        if not section.body_md:
            out.add(path, "body", f"section {section.title!r} is empty",
                    "write its text or remove the heading")
    return tuple(sections)


def _provenance(raw: dict[str, Any]) -> Provenance:
    return Provenance(**raw)


def _json_record(path: Path, kind: str, schema: Any, out: _Collector) -> dict | None:
    """An optional recorded JSON file (receipt, figure data): validated when present."""
    if not path.is_file():
        return None
    text = out.read(path, kind, "run `pathways course record`")
    if text is None:
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        out.add(path, f"line {exc.lineno}", f"not valid JSON: {exc.msg}",
                "rewrite it with `pathways course record`")
        return None
    # JSON has no YAML node tree: problems name the field path without a line.
    loaded, problems = load_document(kind, schema, YamlDoc(data, None), relative(path, out.root))
    out.problems.extend(problems)
    return loaded


def _steps(fm: dict, main: str | None, main_path: Path, md: Path,
           out: _Collector) -> tuple[BuildStep, ...]:
    if main is None:
        return ()
    regions, errors = parse_regions(main)
    for error in errors:
        out.add(main_path, f"line {error.line}", error.message, error.fix)
    steps: list[BuildStep] = []
    named = [s["region"] for s in fm["steps"]]
    for index, step in enumerate(fm["steps"]):
        region = regions.get(step["region"])
        if region is None:
            out.add(md, f"steps[{index}].region", f"region `{step['region']}` is not in "
                    "code/main.py", f"mark the step's code in code/main.py with "
                    f"`# region {step['region']}` ... `# endregion`, or fix the name")
            continue
        steps.append(BuildStep(index + 1, region.name, step["title"], step["intro"],
                               region.code, tuple(step["building_blocks"]), step["why"]))
    for name, region in regions.items():
        if name not in named:
            out.add(main_path, f"line {region.line}", f"region `{name}` has no step in "
                    "lesson.md's front matter", f"add a step with `region: {name}` to `steps`, "
                    "or remove the markers")
    file_order = [n for n in regions if n in named]
    if [n for n in named if n in regions] != file_order:
        out.add(md, "steps", f"steps are listed in a different order ({', '.join(named)}) from "
                f"their regions in code/main.py ({', '.join(file_order)})",
                "list the steps in the order their regions appear in code/main.py")
    return tuple(steps)


def _experiments(fm: dict, folder: Path, md: Path, out: _Collector) -> tuple[Experiment, ...]:
    result = []
    for index, item in enumerate(fm["experiments"]):
        path = folder / "experiments" / f"{item['slug']}.py"
        code = out.python(path, f"experiment file for experiments[{index}]",
                          f"create experiments/{item['slug']}.py (it runs appended to "
                          "code/main.py)")
        if code is not None:
            result.append(Experiment(item["slug"], item["title"], path, code, item["expected"],
                                     item["explanation"]))
    listed = {e["slug"] for e in fm["experiments"]}
    for path in sorted((folder / "experiments").glob("*.py")):
        if path.stem not in listed:
            out.add(path, "", "experiment file is not listed in lesson.md's `experiments`",
                    f"add `- slug: {path.stem}` with its title, expected and explanation, "
                    "or delete the file")
    _unique(fm["experiments"], "experiments", md, out)
    return tuple(result)


def _exercises(fm: dict, folder: Path, md: Path, out: _Collector) -> tuple[Exercise, ...]:
    result = []
    for index, item in enumerate(fm["exercises"]):
        slug = item["slug"]
        base = folder / "exercises" / slug
        if not base.is_dir():
            out.add(md, f"exercises[{index}].slug", f"no folder exercises/{slug}/",
                    f"create exercises/{slug}/ with starter.py, solution.py and checks.py")
            continue
        starter = out.python(base / "starter.py", "starter.py", "write the TODO scaffold")
        solution = out.python(base / "solution.py", "solution.py", "write the reference solution")
        checks_path = base / "checks.py"
        suite = None
        if not checks_path.is_file():
            out.add(checks_path, "", "missing checks.py", "write the hidden checks: EXERCISE = "
                    "FunctionExercise(...) and calls(params, rng), or NAMES and @check "
                    "functions (docs/AUTHORING.md)")
        else:
            try:
                suite = load_suite(checks_path)
            except ChecksError as exc:
                out.add(checks_path, "", str(exc).split(": ", 1)[-1],
                        "define NAMES = (...) and at least one @check function")
        if starter is None or solution is None or suite is None:
            continue
        params = dict(suite.function.params) if suite.function else {}
        texts = (item["prompt"], starter, solution)
        words = (tuple(item["guide"]), tuple(item["plan"]), tuple(item["hints"]),
                 item["reasoning"])
        every = (*texts, *words[0], *words[1], *words[2], words[3])
        for name in sorted(set().union(*(fields(t) for t in every)) - set(params)):
            out.add(md, f"exercises[{index}]", f"`{{{{{name}}}}}` is not a parameter of "
                    "checks.py's EXERCISE", f"declare it in FunctionExercise(params={{"
                    f"'{name}': (...)}}) or remove the field")
        digest = hashlib.sha256(checks_path.read_bytes() + b"\0" + solution.encode()).hexdigest()
        shown = default_variant(params)
        result.append(Exercise(
            f"{fm['id']}.exercise.{slug}", slug, item["kind"], item["title"],
            render(item["prompt"], shown), tuple(render(t, shown) for t in words[0]),
            tuple(render(t, shown) for t in words[1]), tuple(render(t, shown) for t in words[2]),
            render(words[3], shown), render(starter, shown),
            render(solution, shown), checks_path, suite.max_points,
            tuple((k, tuple(v)) for k, v in params.items()), digest,
            suite.function.function if suite.function else "", templates=texts,
            text_templates=words if any(fields(t) for t in every[3:]) else None,
            devices=item["devices"]))
    listed = {e["slug"] for e in fm["exercises"]}
    for path in sorted((folder / "exercises").glob("*/")):
        if path.is_dir() and path.name not in listed and not path.name.startswith(("_", ".")):
            out.add(path, "", "exercise folder is not listed in lesson.md's `exercises`",
                    f"add `- slug: {path.name}` to `exercises`, or delete the folder")
    _unique(fm["exercises"], "exercises", md, out)
    return tuple(result)


def _unique(items: list[dict], field: str, md: Path, out: _Collector) -> None:
    seen: set[str] = set()
    for index, item in enumerate(items):
        if item["slug"] in seen:
            out.add(md, f"{field}[{index}].slug", f"slug `{item['slug']}` is used twice",
                    "give each one its own slug")
        seen.add(item["slug"])


def _figure(fm: dict, folder: Path, out: _Collector) -> Figure:
    base = folder / "figure"
    script = base / "make_figure.py"
    out.python(script, "figure/make_figure.py", "write the script that computes the figure's "
               "data with JAX on CPU and writes data.json and figure.png (docs/AUTHORING.md)")
    data = _json_record(base / "data.json", "figure-data", FigureDataSchema(), out)
    spec = fm["figure"]
    return Figure(script, base / "figure.png", base / "data.json", spec["alt"], spec["caption"],
                  spec["predict"], tuple(Section(r["title"], r["body"]) for r in spec["reading"]),
                  _provenance(data["provenance"]) if data else None)


def _front_matter(text: str, md: Path, out_root: Path,
                  problems: list[Problem]) -> tuple[dict, str] | None:
    """(validated front matter, Markdown body), or None when the front matter is unusable."""
    front, first_line, body, split_problems = split_front_matter(text, relative(md, out_root))
    problems.extend(split_problems)
    if front is None:
        return None
    doc, yaml_problems = parse_yaml(front, relative(md, out_root), first_line)
    problems.extend(yaml_problems)
    if doc is None:
        return None
    fm, schema_problems = load_document("lesson", LessonSchema(), doc, relative(md, out_root))
    problems.extend(schema_problems)
    return None if fm is None else (fm, body)


def _check_folder_name(fm: dict, folder: Path, id_prefix: str, md: Path,
                       out: _Collector) -> None:
    """The folder's number is the lesson's order, and its id is the phase's prefix + order."""
    match = re.match(r"^(\d\d)-", folder.name)
    if match is None or int(match[1]) != fm["order"]:
        out.add(md, "order", f"order {fm['order']} does not match the folder name "
                f"{folder.name!r}", f"name the folder {fm['order']:02d}-<slug> or fix `order`")
    if fm["id"] != f"{id_prefix}-{fm['order']:02d}":
        out.add(md, "id", f"id `{fm['id']}` does not follow the phase and order",
                f"use `id: {id_prefix}-{fm['order']:02d}` (ids are stable: never rename one "
                "that an LMS already stores)")


def _receipt(folder: Path, out: _Collector) -> Receipt | None:
    data = _json_record(folder / "receipt.json", "receipt", ReceiptSchema(), out)
    return (Receipt(_provenance(data["provenance"]), data["command"], data["output"])
            if data else None)


def load_lesson(folder: Path, id_prefix: str, out_root: Path,
                problems: list[Problem]) -> Lesson | None:
    """The lesson in ``folder``, or None when its front matter is unusable.

    ``id_prefix`` is the phase folder's name without its number (``arrays`` for 01-arrays).
    """
    out = _Collector(out_root, problems)
    md = folder / "lesson.md"
    text = out.read(md, "lesson.md", "write lesson.md: YAML front matter between --- lines, "
                    "then the Understand prose (docs/AUTHORING.md)")
    if text is None:
        return None
    parsed = _front_matter(text, md, out_root, problems)
    if parsed is None:
        return None
    fm, body = parsed
    _check_folder_name(fm, folder, id_prefix, md, out)
    sections = parse_sections(body, md, out)
    main_path = folder / "code" / "main.py"
    main = out.python(main_path, "code/main.py", "write the complete worked example with "
                      "`# region step-N` markers around each build step")
    steps = _steps(fm, main, main_path, md, out)
    experiments = _experiments(fm, folder, md, out)
    exercises = _exercises(fm, folder, md, out)
    figure = _figure(fm, folder, out)
    receipt = _receipt(folder, out)
    evidence = out.read(folder / "evidence.md", "evidence.md",
                        "write the evidence template (Markdown) the learner fills in")
    cp = fm["checkpoint"]
    checkpoint = _checkpoint(fm["id"], cp)
    if main is None or evidence is None:
        return None
    return Lesson(
        id=fm["id"], slug=folder.name, phase_id=folder.parent.name, order=fm["order"],
        title=fm["title"], revision=fm["revision"], minutes=fm["minutes"],
        hardware=fm["hardware"], summary=fm["summary"],
        prerequisites=tuple(fm["prerequisites"]), objectives=tuple(fm["objectives"]),
        problem=fm["problem"], sections=sections, figure=figure, steps=steps,
        main_path=main_path, main_code=main, expected_output=fm["expected_output"],
        receipt=receipt, experiments=experiments, exercises=exercises, checkpoint=checkpoint,
        diagnose=fm["diagnose"], carry_forward=tuple(fm["carry_forward"]),
        evidence_template=evidence,
        references=tuple(Reference(r["title"], r["url"]) for r in fm["references"]),
        dir=folder,
    )


def _checkpoint(lesson_id: str, cp: dict[str, Any]) -> Checkpoint:
    """The checkpoint model; a parametrised one holds its default variant (``for_variant``)."""
    choices = tuple(
        Choice(c["key"], c["text"], bool(c.get("correct")), c["feedback"],
               None if "correct_when" not in c else
               tuple((n, tuple(v)) for n, v in c["correct_when"].items()))
        for c in cp["choices"])
    params = tuple((n, tuple(v)) for n, v in (cp.get("params") or {}).items())
    return Checkpoint(f"{lesson_id}.checkpoint", cp["question"], choices, cp["explanation"],
                      params=params).for_variant()
