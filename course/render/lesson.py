"""A lesson as an accessible HTML fragment in five stages (Understand, Build & Run,
Experiments, Exercise & Check, Evidence): headings in order, every content string escaped or
rendered from Markdown with raw HTML disabled. Pure: the lesson and its links in, a string out."""

from __future__ import annotations

from html import escape

from course.model import Checkpoint, Exercise, Lesson, Project
from course.render import markdown
from course.render.code import code_block, output_block
from course.render.links import LessonLinks

STAGES: tuple[tuple[str, str], ...] = (
    ("understand", "Understand"),
    ("build", "Build & Run"),
    ("experiments", "Experiments"),
    ("exercise", "Exercise & Check"),
    ("evidence", "Evidence"),
)
SETUP_TITLE = "Setup help: Python, notebook, or Cloud TPU VM"
GUIDE_TITLE = "Phase study guide: preparation, milestones and project evidence"
KIND_LABEL = {"exercise": "Exercise", "practice": "Practice", "challenge": "Challenge"}


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _link(url: str | None, text: str) -> str:
    return f'<a href="{_e(url)}">{_e(text)}</a>' if url else ""


def _items(items: tuple[str, ...] | list[str], *, ordered: bool = False) -> str:
    tag = "ol" if ordered else "ul"
    body = "".join(f"<li>{markdown.inline(item)}</li>" for item in items)
    return f"<{tag}>{body}</{tag}>" if items else ""


def _stage(index: int, slug: str, title: str, lesson_id: str, body: list[str]) -> str:
    hid = f"{lesson_id}-{slug}"
    return (
        f'<section class="stage" id="{_e(hid)}" aria-labelledby="{_e(hid)}-h">'
        f'<h2 id="{_e(hid)}-h">Stage {index} of {len(STAGES)} · {_e(title)}</h2>'
        + "".join(body) + "</section>"
    )


def _header(lesson: Lesson, links: LessonLinks) -> str:
    prereqs = ", ".join(
        _link(links.lessons.get(p), links.lesson_titles.get(p, p)) if links.lessons.get(p)
        else _e(links.lesson_titles.get(p, p))
        for p in lesson.prerequisites
    ) or "none"
    downloads = [
        _link(links.notebook, "Notebook (.ipynb)"),
        _link(links.exercise_py, "Exercises (.py)"),
        _link(links.exercise_ipynb, "Exercises (.ipynb)"),
        _link(links.main_py, "Complete main.py"),
        _link(links.lesson_text, "Lesson text"),
    ]
    shown = [d for d in downloads if d]
    phase = markdown.inline(links.phase_title) if links.phase_title else _e(lesson.phase_id)
    position = (f"Lesson {lesson.order} of {links.lessons_in_phase}" if links.lessons_in_phase
                else f"Lesson {lesson.order}")
    nav = "".join(
        f'<li><a href="#{_e(lesson.id)}-{slug}">{_e(title)}</a></li>' for slug, title in STAGES
    )
    return (
        f'<header class="lesson-header"><p class="crumb">Phase {phase} · {position}</p>'
        f"<h1>{markdown.inline(lesson.title)}</h1>"
        f'<p class="meta">Revision {_e(lesson.revision)} · about {lesson.minutes} minutes · '
        f"{_e(lesson.hardware.upper())} practice</p>"
        f'<p class="summary">{markdown.inline(lesson.summary)}</p>'
        + (f'<p class="guide-link">{_link(links.phase_guide, GUIDE_TITLE)}</p>'
           if links.phase_guide else "")
        + f"<p>Before this: {prereqs}. Hardware: {_e(lesson.hardware.upper())}.</p>"
        + (f'<p class="downloads">Downloads: {" · ".join(shown)}</p>' if shown else "")
        + (f'<p class="setup-link">{_link(links.setup, SETUP_TITLE)}</p>' if links.setup
           else "")
        + f'</header><nav class="stages" aria-label="Lesson stages"><ol>{nav}</ol></nav>'
    )


def _understand(lesson: Lesson, links: LessonLinks) -> list[str]:
    fig = lesson.figure
    out = [
        "<h3>What you will be able to do</h3>", _items(lesson.objectives),
        "<h3>The problem</h3>", markdown.block(lesson.problem),
    ]
    for section in lesson.sections:
        out += [f"<h3>{markdown.inline(section.title)}</h3>", markdown.block(section.body_md)]
    out += [
        f"<h3>{markdown.inline(fig.caption)}</h3>",
        f'<p class="predict"><strong>Predict before looking:</strong> '
        f"{markdown.inline(fig.predict)}</p>",
        f'<figure class="lesson-figure"><img src="{_e(links.figure)}" alt="{_e(fig.alt)}">'
        f"<figcaption>{markdown.inline(fig.caption)}",
    ]
    full = f'<p class="figure-links"><a href="{_e(links.figure)}" target="_blank" rel="noopener">'\
        "Open full-size figure</a>"
    if fig.provenance:
        p = fig.provenance
        out.append(f" · plot from a recorded {_e(p.backend.upper())} computation · "
                   f"JAX {_e(p.jax)} · {p.device_count} {_e(p.backend.upper())} "
                   f"device{'s' if p.device_count != 1 else ''}")
    out.append("</figcaption></figure>")
    data = f" · {_link(links.figure_data, 'Download data and provenance')}" \
        if links.figure_data else ""
    out.append(f"{full}{data}</p>")
    for part in fig.reading:
        out += [f"<h4>{markdown.inline(part.title)}</h4>", markdown.block(part.body_md)]
    return out


def _receipt(lesson: Lesson, links: LessonLinks) -> list[str]:
    if lesson.receipt is None:
        return ["<p>No reference execution is recorded for this lesson yet.</p>"]
    p = lesson.receipt.provenance
    devices = f"{p.device_count} {p.backend.upper()} device{'s' if p.device_count != 1 else ''}"
    return [
        '<div class="receipt"><h3>Recorded reference execution</h3>',
        "<p>Output captured from running the complete lesson script and its assertions in the "
        "course CPU environment.</p><dl>",
        f"<dt>Recorded</dt><dd><time>{_e(p.timestamp)}</time></dd>",
        f"<dt>Python</dt><dd>{_e(p.python)}</dd><dt>JAX</dt><dd>{_e(p.jax)}</dd>",
        f"<dt>Devices</dt><dd>{_e(devices)}</dd>",
        f"<dt>Command</dt><dd><code>{_e(lesson.receipt.command)}</code></dd></dl>",
        output_block(lesson.receipt.output, label="Recorded output"),
        f"<p>{_link(links.receipt, 'Download execution record')}</p>" if links.receipt else "",
        "</div>",
    ]


def _build(lesson: Lesson, links: LessonLinks) -> list[str]:
    command = f"python {lesson.relpath}/code/main.py"
    out = [
        '<p class="where"><strong>Where to put and run this code:</strong> work in '
        f"<code>{_e(lesson.relpath)}/code/main.py</code> (or a <code>main.py</code> of your own, "
        "appending each step in order) and run it from the folder that holds "
        "<code>requirements-cpu.txt</code>.</p>",
        '<ol class="steps">',
    ]
    for step in lesson.steps:
        out += [
            f"<li><h3>Step {step.number}: {markdown.inline(step.title)}</h3>",
            markdown.block(step.intro),
            code_block(step.code, label=f"main.py · append build step {step.number}"),
            "<h4>Code building blocks in this step</h4>" if step.building_blocks else "",
            _items(step.building_blocks), markdown.block(step.why), "</li>",
        ]
    out += [
        "</ol>",
        "<details><summary>View the cumulative build in main.py</summary>",
        code_block(lesson.cumulative_code, label="main.py · cumulative build"), "</details>",
        "<h3>Run the example</h3>", code_block(command, label="terminal", language="text"),
        f'<p class="check-line"><strong>Check:</strong> '
        f"{markdown.inline(lesson.expected_output)}</p>",
        f'<p class="setup-link">Not set up yet? {_link(links.setup, SETUP_TITLE)}.</p>'
        if links.setup else "",
        "<details><summary>Inspect the complete assembled example</summary>",
        code_block(lesson.main_code, label="main.py · complete example"), "</details>",
    ]
    return out + _receipt(lesson, links)


def _experiments(lesson: Lesson) -> list[str]:
    out = ["<p>Predict each result before running it. Each experiment runs appended to "
           "<code>main.py</code>, in the same namespace.</p>"] if lesson.experiments else [
           "<p>This lesson has no experiments.</p>"]
    for ex in lesson.experiments:
        out += [
            f"<h3>{markdown.inline(ex.title)}</h3>",
            code_block(ex.code, label=f"experiments/{ex.slug}.py · Python experiment"),
            f"<p><strong>Expected:</strong> {markdown.inline(ex.expected)}</p>",
            markdown.block(ex.explanation),
        ]
    return out


def _exercise(lesson: Lesson, ex: Exercise, links: LessonLinks) -> list[str]:
    out = [
        f'<article class="exercise" id="{_e(ex.id)}" aria-labelledby="{_e(ex.id)}-h">',
        f'<h3 id="{_e(ex.id)}-h"><span class="kind">{_e(KIND_LABEL.get(ex.kind, ex.kind))}'
        f"</span> {markdown.inline(ex.title)}</h3>",
        markdown.block(ex.prompt),
        "<details><summary>Show a writing guide and starter scaffold</summary>",
        "<h4>Key functions and syntax</h4>", _items(ex.guide),
        "<h4>Step-by-step plan</h4>", _items(ex.plan, ordered=True),
        code_block(ex.starter_code, label="Starter scaffold · append to main.py, fill the TODOs"),
        "</details>",
    ]
    for number, hint in enumerate(ex.hints, start=1):
        label = "Show a hint" if len(ex.hints) == 1 else f"Show hint {number}"
        out.append(f"<details><summary>{label}</summary>{markdown.block(hint)}</details>")
    if links.show_solutions:
        out += [
            "<details><summary>Reveal the reference solution and reasoning</summary>",
            code_block(ex.solution_code, label="Reference solution"),
            markdown.block(ex.reasoning), "</details>",
        ]
    submit = links.exercise_submit.get(ex.id)
    if submit:
        out.append(f"<p>{_link(submit, 'Submit your main.py for feedback')}</p>")
    out.append(links.exercise_panel.get(ex.id, ""))
    return out + ["</article>"]


_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _checkpoint(checkpoint: Checkpoint, links: LessonLinks) -> list[str]:
    live = links.checkpoint_action is not None
    cid = _e(checkpoint.id)
    attrs = (f'action="{_e(links.checkpoint_action)}" method="{_e(links.checkpoint_method)}"'
             if live else 'aria-describedby="' + cid + '-note"')
    mode = "live" if live else "self-check"
    out = [
        f'<form class="checkpoint {mode}" id="{cid}" {attrs}>',
        "".join(f'<input type="hidden" name="{_e(n)}" value="{_e(v)}">'
                for n, v in links.checkpoint_hidden) if live else "",
        "" if live else f'<p id="{cid}-note">Self-check: choose an answer to see feedback; '
        "nothing is sent or recorded.</p>",
        f"<fieldset><legend>{markdown.inline(checkpoint.question)}</legend>",
    ]
    required = " required" if live else ""
    for index, choice in enumerate(checkpoint.choices):
        iid = f"{checkpoint.id}-{choice.key}"
        # A live answer is recorded with the letter shown here (the learner's own order).
        label = (f'<span class="choice-label">{_LETTERS[index % len(_LETTERS)]}.</span> '
                 if live else "")
        out.append(
            f'<div class="choice"><input type="radio" id="{_e(iid)}" '
            f'name="{_e(links.checkpoint_field)}" value="{_e(choice.key)}"{required}> '
            f'<label for="{_e(iid)}">{label}{markdown.inline(choice.text)}</label>'
        )
        if not live:  # a live form must not reveal the answer; the server judges it
            verdict = "correct" if choice.correct else "incorrect"
            label = "Correct." if choice.correct else "Not quite."
            out.append(f'<p class="feedback {verdict}" role="status"><strong>{label}</strong> '
                       f"{markdown.inline(choice.feedback)}</p>")
        out.append("</div>")
    out.append("</fieldset>")
    if live:
        out.append('<button type="submit">Check answer</button>')
    else:
        out.append("<details><summary>Show the explanation</summary>"
                   f"{markdown.block(checkpoint.explanation)}</details>")
    return out + ["</form>"]


def checkpoint_html(checkpoint: Checkpoint, links: LessonLinks) -> str:
    """The checkpoint form alone (live or self-check, as ``links`` says), for a caller that
    rendered the lesson with ``links.checkpoint_slot``."""
    return "".join(_checkpoint(checkpoint, links))


def _exercises(lesson: Lesson, links: LessonLinks) -> list[str]:
    out = [
        "<p><strong>Where to put your code:</strong> append your solution at the bottom of "
        f"<code>{_e(lesson.relpath)}/code/main.py</code> (or in the Make it yours cell of the "
        "exercises notebook) and run it before opening the reference solution.</p>"
    ]
    for ex in lesson.exercises:
        out += _exercise(lesson, ex, links)
    form = ([links.checkpoint_slot] if links.checkpoint_slot is not None
            else _checkpoint(lesson.checkpoint, links))
    out += ["<h3>Check your understanding</h3>", *form,
            "<h3>Diagnose the result</h3>", markdown.block(lesson.diagnose)]
    return out


def _project_block(project: Project, links: LessonLinks) -> list[str]:
    """The phase's integration project, as the seed shows it under every lesson."""
    stages = ", ".join(str(s.number) for s in project.stages)
    workspace = (f'<p>{_link(links.project, f"Open project workspace · stages {stages}")}</p>'
                 if links.project else "")
    return [
        f'<aside class="project-block" aria-labelledby="{_e(project.id)}-block-h">',
        f'<h3 id="{_e(project.id)}-block-h">Integration project: '
        f"{markdown.inline(project.title)}</h3>",
        f"<p>{markdown.inline(project.summary)}</p>",
        f"<p><strong>Checkpoint to prove:</strong> {markdown.inline(project.checkpoint_prompt)}"
        "</p>",
        f"<p>Work in <code>projects/{_e(project.slug)}/starter/</code>, stage by stage "
        f"({stages}).</p>",
        workspace, "</aside>",
    ]


def _evidence(lesson: Lesson, links: LessonLinks,
              project: Project | None = None) -> list[str]:
    refs = "".join(
        f'<li><a href="{_e(r.url)}">{markdown.inline(r.title)}</a></li>' for r in lesson.references
    )
    out = ["<h3>Carry forward</h3>", _items(lesson.carry_forward),
           "<h3>Keep your evidence</h3>"]
    if links.evidence_template:
        out.append(f"<p>{_link(links.evidence_template, 'Download the evidence template')}</p>")
    out += [
        "<details><summary>Read the evidence template</summary>",
        markdown.block(lesson.evidence_template), "</details>",
        "<p>Save your modified code, its output and an explanation of your prediction.</p>",
    ]
    if lesson.hardware == "cpu":
        tpu = _link(f"{links.setup}#cloud-tpu", "Cloud TPU setup") if links.setup else \
            "Cloud TPU setup"
        out.append(f'<p class="tpu-note">Verified on local CPU. Stage to a Cloud TPU VM via '
                   f"{tpu} to record accelerator execution receipts.</p>")
    if project is not None:
        out += _project_block(project, links)
    elif links.project:
        out.append(f"<p>Phase project: {_link(links.project, 'open the integration project')}"
                   "</p>")
    out += ["<h3>References</h3>", f"<ul>{refs}</ul>" if refs else "<p>None.</p>"]
    return out


def lesson_html(lesson: Lesson, *, links: LessonLinks, project: Project | None = None) -> str:
    """The lesson body as an HTML fragment (``<article>``), for the static site and the LMS.

    Headings: h1 title, h2 per stage, h3/h4 inside. No scripts, no external resources beyond
    the URLs in ``links``. ``project``: the phase's integration project, shown in Evidence.
    Raises ``RenderError`` for math that cannot become MathML.
    """
    bodies = {
        "understand": _understand(lesson, links),
        "build": _build(lesson, links),
        "experiments": _experiments(lesson),
        "exercise": _exercises(lesson, links),
        "evidence": _evidence(lesson, links, project),
    }
    stages = "".join(
        _stage(i, slug, title, lesson.id, bodies[slug])
        for i, (slug, title) in enumerate(STAGES, start=1)
    )
    return (f'<article class="lesson" id="{_e(lesson.id)}" lang="en">'
            f"{_header(lesson, links)}{stages}</article>\n")
