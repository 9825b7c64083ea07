"""A phase's integration project as an HTML fragment: the guide (README.md), its stages and
the commands a learner runs. Pure, like the lesson renderer."""

from __future__ import annotations

from html import escape

from course.model import Project
from course.render import markdown
from course.render.code import code_block


def project_html(project: Project, *, workspace: str | None = None) -> str:
    """The project page body; ``workspace`` is an optional URL of the downloadable starter."""
    e = escape
    run = f"projects/{project.slug}/run.py"
    commands = "\n".join(
        f"python {run} --implementation starter --stage {s.number}"
        + (f" --evidence-dir runs/{project.slug}" if s.number >= 3 else "")
        for s in project.stages
    )
    stages = "".join(
        f"<li><strong>Stage {s.number}: {markdown.inline(s.title)}</strong> "
        f"{markdown.inline(s.description)}</li>"
        for s in project.stages
    )
    link = f'<p><a href="{e(workspace)}">Open the project workspace</a></p>' if workspace else ""
    return (
        f'<article class="project" id="{e(project.id)}" lang="en">'
        f'<header><p class="crumb">Phase {e(project.phase_id)} · Integration project</p>'
        f"<h1>{markdown.inline(project.title)}</h1>"
        f'<p class="summary">{markdown.inline(project.summary)}</p>'
        f"<p><strong>Checkpoint to prove:</strong> {markdown.inline(project.checkpoint_prompt)}"
        f"</p>{link}</header>"
        f'<section aria-labelledby="{e(project.id)}-stages"><h2 id="{e(project.id)}-stages">'
        f"Stages</h2><ol>{stages}</ol>"
        + code_block(commands, label="terminal · from the folder that holds projects/",
                     language="text")
        + f'</section><section aria-labelledby="{e(project.id)}-guide">'
        f'<h2 id="{e(project.id)}-guide">Guide</h2>'
        f'<div class="guide">{markdown.block(project.guide_md, top=3)}</div></section>'
        "</article>\n"
    )

