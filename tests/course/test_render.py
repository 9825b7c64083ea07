"""The lesson renderer: the HTML parses, stages and headings come in order, math becomes
MathML, code is highlighted, the figure has its alt text, and content text is always escaped."""

from __future__ import annotations

import dataclasses
from html.parser import HTMLParser
from pathlib import Path

import pytest

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
from course.render import STAGES, LessonLinks, RenderError, lesson_html, stylesheet
from tests.packaged import packaged_course

VOID = {"input", "img", "br", "hr", "meta", "link", "mspace", "none", "mprescripts"}


class Tree(HTMLParser):
    """Checks nesting while collecting headings, tags and text, so a test sees the structure."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.headings: list[tuple[int, str]] = []
        self.text: list[str] = []
        self._heading: list[str] | None = None
        self.errors: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in VOID:
            self.stack.append(tag)
        if tag in {"h1", "h2", "h3", "h4", "h5", "h6"}:
            self._heading = []

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:]} ")
            return
        self.stack.pop()
        if tag[0] == "h" and tag[1:].isdigit() and self._heading is not None:
            self.headings.append((int(tag[1]), "".join(self._heading).strip()))
            self._heading = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._heading is not None:
            self._heading.append(data)


def parse(html: str) -> Tree:
    tree = Tree()
    tree.feed(html)
    tree.close()
    assert not tree.errors, tree.errors
    assert not tree.stack, f"unclosed: {tree.stack}"
    return tree


def provenance() -> Provenance:
    return Provenance(timestamp="2026-12-02T10:45:15+00:00", python="3.11.7", jax="0.10.2",
                      jaxlib="0.10.2", backend="cpu", device_count=1, source_sha256="0" * 64)


def sample_lesson(root: Path) -> Lesson:
    """arrays-04 as the seed page describes it, built from model objects."""
    steps = (
        BuildStep(1, "step-1", "Set up imports and input tensors", "Import and define x.",
                  "import jax.numpy as jnp\nx = jnp.array([1., 2., 3., 4.])",
                  ("`jnp.array(values, dtype=...)` — constructs an immutable array.",),
                  "Explicit inputs first."),
        BuildStep(2, "step-2", "Apply the update", "Set and add.",
                  "y = x.at[1].set(20.)\nz = x.at[jnp.array([0, 2])].add(5.)", (), "Core step."),
    )
    main = "\n".join(s.code for s in steps) + '\nprint("Original:", x)\n'
    exercise = Exercise(
        id="arrays-04.exercise.mask-tail", slug="mask-tail", kind="exercise",
        title="Make it yours", prompt="Replace the last two elements with zero; keep $x$.",
        guide=("`x.at[idx].set(v)` — returns a new array.",), plan=("Compute `masked`.",),
        hints=("Slices work in `.at[]`.",), reasoning="Only the slice changes.",
        starter_code="masked = ...  # TODO: compute masked\n",
        solution_code="masked = x.at[2:].set(0.)\n", checks_path=root / "checks.py",
        max_points=3.0,
    )
    return Lesson(
        id="arrays-04", slug="04-immutable-updates-and-indexing", phase_id="01-arrays", order=4,
        title="Immutable updates and indexing", revision="v0.7.0", minutes=45, hardware="cpu",
        summary="Implement functional indexed updates.", prerequisites=("arrays-03",),
        objectives=("Predict the values returned by set and add.",),
        problem="You want to replace a few entries.",
        sections=(
            Section("Separate a new value from a new physical buffer",
                    "Start with $[2,4,6]$.\n\n$$C_{i,k} = \\sum_{j=1}^{N} A_{i,j} B_{j,k}$$\n"),
        ),
        figure=Figure(script_path=root / "make_figure.py", image_path=root / "figure.png",
                      data_path=root / "data.json",
                      alt="Three rows of four cells: the original, set at index 1, add at 0 and 2",
                      caption="An update returns a new array",
                      predict="Which cells change after set, and which after add?",
                      reading=(Section("Read the figure", "Columns are array indices."),),
                      provenance=provenance()),
        steps=steps, main_path=root / "main.py", main_code=main,
        expected_output="Original: [1., 2., 3., 4.]",
        receipt=Receipt(provenance(), "python code/main.py", "Original: [1. 2. 3. 4.]\n"),
        experiments=(Experiment("name-rebinding", "See name rebinding", root / "e.py",
                                "original = x\n", "The original remains.", "Binding changes."),),
        exercises=(exercise,),
        checkpoint=Checkpoint(
            id="arrays-04.checkpoint", question="After `y = x.at[1].set(20.)`, what is x?",
            choices=(Choice("a", "x is unchanged", True, "Right: a new value is returned."),
                     Choice("b", "x is changed", False, "No: x still holds the original.")),
            explanation="Indexed updates return values."),
        diagnose="If nothing changes, check whether the returned update was discarded.",
        carry_forward=("Indexed updates return values.",),
        evidence_template="# Evidence\n\n- original and updated arrays\n",
        references=(Reference("JAX sharp bits", "https://docs.jax.dev/en/latest/"),),
        dir=root,
    )


@pytest.fixture
def lesson(tmp_path: Path) -> Lesson:
    return sample_lesson(tmp_path)


LINKS = LessonLinks(figure="figure.png", notebook="nb.ipynb", evidence_template="evidence.md",
                    lessons={"arrays-03": "arrays-03.html"},
                    lesson_titles={"arrays-03": "Pure functions and explicit inputs"})


def test_stages_in_order_and_headings_never_skip(lesson: Lesson) -> None:
    tree = parse(lesson_html(lesson, links=LINKS))
    stage_titles = [text for level, text in tree.headings if level == 2]
    assert stage_titles == [f"Stage {i} of 5 · {title}" for i, (_, title) in
                            enumerate(STAGES, start=1)]
    levels = [level for level, _ in tree.headings]
    assert levels[0] == 1 and levels.count(1) == 1
    assert all(b - a <= 1 for a, b in zip(levels, levels[1:], strict=False)), levels
    prereq = next(a for t, a in tree.tags if t == "a" and a.get("href") == "arrays-03.html")
    assert prereq and "Before this: Pure functions and explicit inputs." in "".join(tree.text)
    for title in ("Step 1: Set up imports and input tensors", "Recorded reference execution",
                  "Check your understanding", "Carry forward", "References"):
        assert title in [t for _, t in tree.headings]


def test_math_is_mathml_and_figure_has_alt_text(lesson: Lesson) -> None:
    html = lesson_html(lesson, links=LINKS)
    assert html.count("<math") >= 3  # $[2,4,6]$, the display sum, $x$ in the exercise prompt
    assert 'display="block"' in html
    assert "$" not in "".join(parse(html).text).replace("$$", "")  # no raw TeX left behind
    imgs = [attrs for tag, attrs in parse(html).tags if tag == "img"]
    assert imgs == [{"src": "figure.png", "alt": lesson.figure.alt}]


def test_code_highlighted_receipt_and_collapsible_parts(lesson: Lesson) -> None:
    html = lesson_html(lesson, links=LINKS)
    assert '<div class="highlight">' in html and '<span class="kn">import</span>' in html
    text = "".join(parse(html).text)
    for fact in ("2026-12-02T10:45:15+00:00", "3.11.7", "0.10.2", "1 CPU device",
                 "Original: [1. 2. 3. 4.]"):
        assert fact in text
    summaries = [t for t in parse(html).text if "Reveal the reference solution" in t]
    assert summaries and "masked = x.at[2:].set(0.)" in text
    hidden = lesson_html(lesson, links=dataclasses.replace(LINKS, show_solutions=False))
    assert "x.at[2:].set(0.)" not in hidden and "Reveal the reference" not in hidden


def test_static_checkpoint_is_a_self_check_and_live_form_reveals_nothing(lesson: Lesson) -> None:
    static = parse(lesson_html(lesson, links=LINKS))
    forms = [attrs for tag, attrs in static.tags if tag == "form"]
    assert len(forms) == 1 and "action" not in forms[0]
    assert "Right: a new value is returned." in "".join(static.text)
    live_links = dataclasses.replace(LINKS, checkpoint_action="/lti/checkpoint/arrays-04",
                                     checkpoint_field="answer",
                                     checkpoint_hidden=(("csrf", "t0k<en"),))
    live_html = lesson_html(lesson, links=live_links)
    live = parse(live_html)
    form = next(attrs for tag, attrs in live.tags if tag == "form")
    assert form["action"] == "/lti/checkpoint/arrays-04" and form["method"] == "post"
    radios = [a for t, a in live.tags if t == "input" and a.get("type") == "radio"]
    assert [r["name"] for r in radios] == ["answer", "answer"]
    assert [r["value"] for r in radios] == ["a", "b"]
    assert {"type": "hidden", "name": "csrf", "value": "t0k<en"} in [a for _, a in live.tags]
    assert "Right: a new value" not in live_html and "correct" not in form.get("class", "")


def test_content_text_is_escaped_everywhere(lesson: Lesson) -> None:
    evil = "<script>alert(1)</script>"
    copied = dataclasses.replace(
        lesson, title=f"Title {evil}", problem=f"Problem {evil}", summary=evil,
        sections=(Section(f"Sec {evil}", f"Body {evil} and <img src=x onerror=alert(1)>"),),
        figure=dataclasses.replace(lesson.figure, alt=f'alt" onload="x {evil}'),
        diagnose=evil, carry_forward=(evil,),
        checkpoint=dataclasses.replace(
            lesson.checkpoint, question=evil,
            choices=(Choice("a", evil, True, evil), Choice("b", "no", False, "no"))),
    )
    html = lesson_html(copied, links=LINKS)
    tree = parse(html)
    assert "<script" not in html
    assert not [tag for tag, _ in tree.tags if tag == "script"]
    handlers = [(tag, name) for tag, attrs in tree.tags for name in attrs if name.startswith("on")]
    assert not handlers, handlers
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    img = next(attrs for tag, attrs in tree.tags if tag == "img")
    assert img["alt"] == f'alt" onload="x {evil}' and "onload" not in img
    assert [attrs["src"] for tag, attrs in tree.tags if tag == "img"] == ["figure.png"]


def test_bad_math_is_a_clear_error(lesson: Lesson) -> None:
    broken = dataclasses.replace(lesson, sections=(Section("Bad", "$\\frac{1}{$"),))
    with pytest.raises(RenderError, match="cannot convert the math"):
        lesson_html(broken, links=LINKS)


def test_stylesheet_has_light_and_dark_themes_and_toggle() -> None:
    css = stylesheet()
    assert "@media (prefers-color-scheme: dark)" in css
    assert "#theme-toggle:checked" in css
    assert ".highlight .kn" in css


def test_every_real_lesson_and_the_project_render() -> None:
    from course.render import project_html

    course = packaged_course()
    for lesson in course.lessons():
        html = lesson_html(lesson, links=LINKS)
        tree = parse(html)
        assert [t for level, t in tree.headings if level == 2][0].endswith("Understand")
        prose = lesson.problem + "".join(s.body_md for s in lesson.sections)
        if "$" in prose:
            assert "<math" in html, lesson.id
        assert "<script" not in html
        checkpoint = html[html.index('<form class="checkpoint'):]
        assert "{{" not in checkpoint[:checkpoint.index("</form>")], lesson.id
    # The static page of a parametrised checkpoint shows its default variant.
    four = course.lesson("arrays-04")
    assert four is not None and four.checkpoint.params
    assert "x.at[1].set(20.)" in lesson_html(four, links=LINKS)
    project = course.phases[0].project
    assert project is not None
    tree = parse(project_html(project))
    levels = [level for level, _ in tree.headings]
    assert levels[0] == 1 and all(b - a <= 1 for a, b in zip(levels, levels[1:], strict=False))
    assert "<math" in project_html(project)  # the README's display formula
