"""`pathways course build`: a thin wrapper, the work is in course.build.builder."""

from __future__ import annotations

from pathlib import Path

import click

from course.errors import CourseError


@click.command("build")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              default=Path("build/site"), show_default=True, help="Output folder.")
@click.option("--root", type=click.Path(exists=True, file_okay=False, path_type=Path),
              default=None, help="Content folder (default: the packaged course/content).")
@click.option("--requirements", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The learner lock file put into the learner ZIP "
                   "(default: course/requirements-learner.txt).")
@click.option("--jobs", type=click.IntRange(1, 32), default=2, show_default=True,
              help="Outputs made at once (each executed notebook runs its own kernel).")
@click.option("--no-execute", "preview", is_flag=True,
              help="A preview: lesson notebooks keep their cells but are not run (no kernel); "
                   "the next build without it executes them.")
@click.option("--quiet", is_flag=True, help="Print only the summary line.")
def build(out: Path, root: Path | None, requirements: Path | None, jobs: int,
          preview: bool, quiet: bool) -> None:
    """Build the static site, executed notebooks, exercise downloads and the learner ZIP.

    Only outputs whose inputs (content, code, package versions) changed are rebuilt.
    """
    from course.build.builder import REQUIREMENTS
    from course.build.builder import build as build_all

    try:
        report = build_all(root, out, requirements=requirements or REQUIREMENTS,
                           progress=None if quiet else click.echo, jobs=jobs,
                           execute=not preview)
    except CourseError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"build{' (a preview: lesson notebooks not run)' if preview else ''}: "
               f"{report.summary()}")
