"""CSV that a spreadsheet opens as data: every export the tool offers is written here.

Quoting does not stop Excel, LibreOffice or Google Sheets from evaluating a cell that starts
like a formula (``=HYPERLINK(...)`` in a learner's LMS display name becomes a live link in the
instructor's sheet). OWASP's rule: a cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return is prefixed with a single quote, which the spreadsheet shows as text. Numbers
the tool writes itself (scores, attempts) are written as numbers and left alone.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: Any) -> Any:
    """The value as a spreadsheet should show it: text that could start a formula is quoted."""
    if isinstance(value, bool | int | float) or value is None:
        return value
    text = str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def csv_text(header: Iterable[str], rows: Iterable[Iterable[Any]]) -> str:
    """A whole CSV document, every cell through :func:`safe_cell`."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([safe_cell(h) for h in header])
    for row in rows:
        writer.writerow([safe_cell(cell) for cell in row])
    return out.getvalue()
