"""Compare recorded figure data with a fresh run, and printed output with a receipt."""

from __future__ import annotations

import difflib
import math
from typing import Any


def first_difference(recorded: Any, fresh: Any, *, values: bool = True,
                     path: str = "data") -> str | None:
    """Where ``fresh`` differs from ``recorded`` (None: equal).

    values=False compares only the structure (keys, lengths, types): for measured data.
    """
    if isinstance(recorded, dict) and isinstance(fresh, dict):
        if set(recorded) != set(fresh):
            return f"{path}: keys differ ({sorted(recorded)} recorded, {sorted(fresh)} now)"
        for key in recorded:
            found = first_difference(recorded[key], fresh[key], values=values,
                                     path=f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(fresh, list):
        if len(recorded) != len(fresh):
            return f"{path}: {len(recorded)} items recorded, {len(fresh)} now"
        for index, (a, b) in enumerate(zip(recorded, fresh, strict=True)):
            found = first_difference(a, b, values=values, path=f"{path}[{index}]")
            if found:
                return found
        return None
    numbers = (int, float)
    if isinstance(recorded, numbers) and isinstance(fresh, numbers) and not isinstance(
        recorded, bool
    ) and not isinstance(fresh, bool):
        if not values or math.isclose(recorded, fresh, rel_tol=1e-6, abs_tol=1e-12) or (
            math.isnan(recorded) and math.isnan(fresh)
        ):
            return None
        return f"{path}: {recorded!r} recorded, {fresh!r} now"
    if type(recorded) is not type(fresh):
        return (f"{path}: a {type(recorded).__name__} recorded, a {type(fresh).__name__} now")
    if values and recorded != fresh:
        return f"{path}: {recorded!r} recorded, {fresh!r} now"
    return None


def output_diff(recorded: str, fresh: str, limit: int = 20) -> str:
    """A short unified diff of printed output (empty when identical)."""
    if recorded == fresh:
        return ""
    lines = list(difflib.unified_diff(recorded.splitlines(keepends=True),
                                      fresh.splitlines(keepends=True),
                                      "receipt.json output", "this run", n=1))
    if not lines:  # differ only in a trailing newline
        return "the outputs differ only in the final newline"
    return "".join(lines[:limit]).rstrip("\n")
