"""Content problems, collected rather than raised one at a time (PrairieLearn style).

An author fixing a lesson wants every problem of every file in one run, each saying which file,
where in it, what is wrong and what to do, so the loader gathers ``Problem``s and raises a single
``ContentError`` at the end.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the content.

    file: path of the file, relative to the content root where possible.
    where: a field path (``exercises[0].slug``) and/or a line (``line 12``); "" for the file.
    message: what is wrong.
    fix: what the author should do about it.
    """

    file: str
    where: str
    message: str
    fix: str

    def __str__(self) -> str:
        location = f"{self.file}: {self.where}" if self.where else self.file
        return f"{location}: {self.message}\n    fix: {self.fix}"


class CourseError(Exception):
    """Base of every exception the course package raises on purpose."""


class ContentError(CourseError):
    """The content files have problems; ``problems`` lists all of them."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: list[Problem] = list(problems)
        super().__init__(self._text())

    def _text(self) -> str:
        count = len(self.problems)
        head = f"{count} problem{'s' if count != 1 else ''} in the course content:"
        return "\n".join([head, *(f"- {p}" for p in self.problems)])

    def __str__(self) -> str:
        return self._text()


def relative(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` for messages, or as given when it lies elsewhere."""
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
