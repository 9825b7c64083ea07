"""Lesson notebooks (executed, outputs kept) and exercise notebooks ("Make it yours" cells).

A lesson notebook runs in a scratch copy of the lesson's learner files, so the figure script
it reruns writes there, never into the content folder; it is meant to sit in the lesson folder
(the learner ZIP puts it there), where ``figure/`` is.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from course.errors import CourseError
from course.model import Lesson
from course.tools.execute import BLAS_ENV, kept_cache_env

if TYPE_CHECKING:
    from nbformat import NotebookNode

log = logging.getLogger(__name__)

KERNEL = "python3"
TIMEOUT_S = 300
LEARNER_DIRS = ("code", "experiments", "figure")


class NotebookError(CourseError):
    """A lesson notebook failed to execute."""


def main_cells(lesson: Lesson) -> list[tuple[str, str]]:
    """``code/main.py`` split at its step regions: (title, code) per step, plus any code the
    file has between regions, so the cells run exactly what main.py runs."""
    cells: list[tuple[str, str]] = []
    titles = {step.region: f"Step {step.number}: {step.title}" for step in lesson.steps}
    current: list[str] = []
    region: str | None = None
    for line in lesson.main_code.splitlines():
        stripped = line.strip()
        if stripped.startswith("# region ") and region is None:
            _flush(cells, "main.py (outside the steps)", current)
            region, current = stripped.removeprefix("# region ").strip(), []
        elif stripped == "# endregion" and region is not None:
            _flush(cells, titles.get(region, region), current)
            region, current = None, []
        else:
            current.append(line)
    _flush(cells, "main.py (outside the steps)", current)
    return cells


def _flush(cells: list[tuple[str, str]], title: str, lines: list[str]) -> None:
    code = "\n".join(lines).strip("\n")
    if any(ln.strip() and not ln.strip().startswith("#") for ln in lines):
        cells.append((title, code))


def lesson_notebook(lesson: Lesson) -> NotebookNode:
    import nbformat  # here, not at the top: a no-change build never needs Jupyter

    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [md(f"# {lesson.title}\n\n{lesson.summary}\n\nLesson `{lesson.id}` · revision "
                f"{lesson.revision}. Run this notebook from the lesson folder "
                f"`{lesson.relpath}/`, which holds `figure/`.")]
    steps = {f"Step {s.number}: {s.title}": s for s in lesson.steps}
    cells.append(md("## Build & Run"))
    for title, source in main_cells(lesson):
        step = steps.get(title)
        cells.append(md(f"### {title}" + (f"\n\n{step.intro}" if step else "")))
        cells.append(code(source))
    if lesson.experiments:
        cells.append(md("## Experiments\n\nPredict each result before you run the cell."))
    for ex in lesson.experiments:
        cells += [md(f"### {ex.title}\n\nExpected: {ex.expected}"), code(ex.code.strip("\n"))]
    fig = lesson.figure
    cells += [
        md(f"## Figure: {fig.caption}\n\nPredict before looking: {fig.predict}\n\nThe cell "
           "reruns the figure's data experiment and plotting code (`figure/make_figure.py`) on "
           "this machine, then shows the figure it drew."),
        code("import runpy\nimport sys\n\nfrom IPython.display import Image, display\n\n"
             'sys.argv = ["figure/make_figure.py"]  # the script parses its own arguments\n'
             'runpy.run_path("figure/make_figure.py", run_name="__main__")\n'
             'display(Image(filename="figure/figure.png"))'),
    ]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": KERNEL, "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def unexecuted_lesson_notebook(lesson: Lesson) -> bytes:
    """The lesson notebook as a preview build writes it: its cells, no outputs."""
    import nbformat

    nb = lesson_notebook(lesson)
    nbformat.validate(nb)
    return nbformat.writes(nb).encode()


def execute_lesson_notebook(lesson: Lesson) -> bytes:
    """The lesson notebook, executed in a scratch copy of the lesson's learner files."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError
    from traitlets.config import Config

    nb = lesson_notebook(lesson)
    with tempfile.TemporaryDirectory(prefix=f"pathways-nb-{lesson.id}-") as scratch:
        for name in LEARNER_DIRS:
            if (lesson.dir / name).is_dir():
                shutil.copytree(lesson.dir / name, Path(scratch) / name,
                                ignore=shutil.ignore_patterns("__pycache__"))
        # IPC sockets in the scratch folder: no TCP port, nothing reachable from outside.
        config = Config()
        config.KernelManager.transport = "ipc"
        config.KernelManager.ip = str(Path(scratch) / "kernel")
        client = NotebookClient(nb, timeout=TIMEOUT_S, kernel_name=KERNEL, config=config,
                                resources={"metadata": {"path": scratch}})
        # Its own event loop, closed here: a build runs notebooks in worker threads, where
        # nbclient's run_sync would leave a loop (and the kernel's sockets) open per thread.
        # The kernel shares the compilation cache an author keeps for `course check`, if any,
        # and its numpy BLAS runs on one thread, as `course check`'s runs do (BLAS_ENV).
        env = {**BLAS_ENV, **os.environ, **kept_cache_env()}
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(client.async_execute(env=env))
        except CellExecutionError as exc:
            raise NotebookError(
                f"{lesson.relpath}: the lesson notebook failed while executing: "
                f"{exc.ename}: {exc.evalue}; run `pathways course check` to find the "
                "failing block and fix it"
            ) from exc
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()
    for cell in nb.cells:  # stable bytes: execution timing metadata changes every run
        cell.metadata.pop("execution", None)
    nbformat.validate(nb)
    return nbformat.writes(nb).encode()


def exercise_notebook(lesson: Lesson) -> bytes:
    """``main.py`` then one "Make it yours" cell per exercise starter (not executed: the
    starters stop at their TODOs until the learner fills them in)."""
    import nbformat

    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [md(f"# Exercises: {lesson.title}\n\nRun the lesson code first, then fill in each "
                "Make it yours cell and run it."),
             md("## The lesson code (`code/main.py`)"), code(lesson.main_code.strip("\n"))]
    for ex in lesson.exercises:
        cells += [md(f"## Make it yours: {ex.title} ({ex.kind})\n\n{ex.prompt}\n\n"
                     f"Exercise id `{ex.id}`."),
                  code(ex.starter_code.strip("\n"))]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": KERNEL, "display_name": "Python 3", "language": "python"}
    nbformat.validate(nb)
    return nbformat.writes(nb).encode()


def exercise_script(lesson: Lesson) -> bytes:
    """``exercises/<lesson>.py``: main.py plus each starter, as ``# %%`` cells."""
    parts = [f"# %% [markdown]\n# Exercises: {lesson.title} ({lesson.id})\n"
             f"# Run: python exercises/{lesson.id}.py  (fill in each TODO first)\n",
             f"# %% The lesson code (code/main.py)\n{lesson.main_code.strip(chr(10))}\n"]
    for ex in lesson.exercises:
        parts.append(f"# %% Make it yours: {ex.title} ({ex.kind}, {ex.id})\n"
                     f"{ex.starter_code.strip(chr(10))}\n")
    return "\n\n".join(parts).encode()
