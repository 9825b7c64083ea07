"""`pathways course export`: a thin wrapper, the work is in course.export.cartridge."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

import click

from course.errors import CourseError


def _url(ctx: click.Context, param: click.Parameter, value: str) -> str:
    parts = urlparse(value)
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        raise click.BadParameter(f"{value!r} is not an http(s) URL; give the tool's base URL, "
                                 "e.g. https://pathways.example.edu")
    return value


@click.command("export")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              default=Path("build/export"), show_default=True, help="Output folder.")
@click.option("--tool-url", required=True, callback=_url,
              help="The tool's base URL (its LTI 1.3 launch URL is <tool-url>/lti/launch).")
@click.option("--root", type=click.Path(exists=True, file_okay=False, path_type=Path),
              default=None, help="Content folder (default: the packaged course/content).")
def export(out: Path, tool_url: str, root: Path | None) -> None:
    """Export an IMS Common Cartridge 1.3 (LTI links) and a Canvas QTI 1.2 checkpoint quiz."""
    from course.export.cartridge import export as write_packages
    from course.loader import load_course

    try:
        written = write_packages(load_course(root), out, tool_url)
    except CourseError as exc:
        raise click.ClickException(str(exc)) from exc
    for path in written:
        click.echo(f"wrote {path} ({path.stat().st_size} bytes)")
