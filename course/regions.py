"""Build steps derived from ``# region NAME`` / ``# endregion`` markers in code/main.py.

The steps a lesson page shows are cut out of the one file that ``check`` runs, so the page and
the tested code cannot drift apart.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

START = re.compile(r"^\s*#\s*region\s+(?P<name>\S+)\s*$")
END = re.compile(r"^\s*#\s*endregion\b.*$")


@dataclass(frozen=True)
class Region:
    name: str
    line: int  # 1-based line of the `# region` marker
    code: str


@dataclass(frozen=True)
class RegionError:
    line: int
    message: str
    fix: str


def parse_regions(source: str) -> tuple[dict[str, Region], list[RegionError]]:
    """Regions of ``source`` in file order; problems for unclosed, nested or repeated ones."""
    regions: dict[str, Region] = {}
    errors: list[RegionError] = []
    open_name: str | None = None
    open_line = 0
    body: list[str] = []
    for number, line in enumerate(source.splitlines(), start=1):
        start = START.match(line)
        if start:
            if open_name is not None:
                errors.append(RegionError(number, f"region `{start['name']}` starts inside "
                                          f"region `{open_name}` (line {open_line})",
                                          "close the first region with `# endregion` before "
                                          "starting the next; regions do not nest"))
            open_name, open_line, body = start["name"], number, []
            continue
        if END.match(line):
            if open_name is None:
                errors.append(RegionError(number, "`# endregion` without a `# region NAME` "
                                          "before it", "remove it or add the opening marker"))
                continue
            if open_name in regions:
                errors.append(RegionError(open_line, f"region `{open_name}` appears twice "
                                          f"(first at line {regions[open_name].line})",
                                          "give every region its own name"))
            else:
                code = textwrap.dedent("\n".join(body)).strip("\n")
                regions[open_name] = Region(open_name, open_line, code)
            open_name = None
            continue
        if open_name is not None:
            body.append(line)
    if open_name is not None:
        errors.append(RegionError(open_line, f"region `{open_name}` is never closed",
                                  "add `# endregion` after the region's last line"))
    return regions, errors
