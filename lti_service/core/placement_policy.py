"""A placement's attempt policy, in one place: how many attempts it allows, which one counts.

Read by the launch (custom parameters), the deep-linking picker, the policy API, the
configuration's defaults, checkpoint answers and exercise submissions; the columns are
``Placement.max_attempts``, ``Placement.code_attempts`` and ``Placement.counting``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from lti_service.core.errors import excerpt

COUNTINGS = ("first", "last", "best")
"""Which graded attempt is the placement's score: the first, the last, or the best one."""
DEFAULT_COUNTING = "best"
MAX_ATTEMPTS_LIMIT = 100
"""The most attempts a placement may allow (the picker, custom parameters, the API)."""
DEFAULT_MAX_ATTEMPTS = 3
_DIGITS = re.compile(r"[0-9]{1,3}")
T = TypeVar("T")


def parse_max_attempts(value: object) -> int:
    """A placement's attempt limit as a custom parameter or a form sends it: digits, 1..100.

    Strict on purpose: "2.7", "1e30" or 10**30 once made every later launch of the link a 500.
    Raises ValueError with a message a person can act on.
    """
    text = value if isinstance(value, str) else ""
    if not _DIGITS.fullmatch(text) or not 1 <= int(text) <= MAX_ATTEMPTS_LIMIT:
        raise ValueError(f"max_attempts must be a whole number from 1 to {MAX_ATTEMPTS_LIMIT}, "
                         f"not {excerpt(value)}")
    return int(text)


def parse_code_attempts(value: object) -> int | None:
    """A placement's graded code attempts as the picker or a custom parameter sends them:
    empty or "unlimited" for no limit, else a whole number 1..100 (ValueError otherwise)."""
    if value is None or (isinstance(value, str) and value.strip() in ("", "unlimited")):
        return None
    try:
        return parse_max_attempts(value.strip() if isinstance(value, str) else value)
    except ValueError:
        raise ValueError("code attempts must be empty (unlimited) or a whole number from 1 to "
                         f"{MAX_ATTEMPTS_LIMIT}, not {excerpt(value)}") from None


def parse_counting(value: object) -> str:
    """A counting rule as a custom parameter or a form sends it (ValueError otherwise)."""
    if value not in COUNTINGS:
        raise ValueError(f"counting must be first, last or best, not {excerpt(value)}")
    return str(value)


def counted(attempts: Sequence[T], counting: str, score: Callable[[T], float]) -> T | None:
    """The attempt that counts under ``counting`` (``attempts`` in attempt order): the first,
    the last, or the best-scored (the earliest of equal scores); None when there is none."""
    if not attempts:
        return None
    if counting == "first":
        return attempts[0]
    if counting == "last":
        return attempts[-1]
    best = attempts[0]
    for attempt in attempts[1:]:
        if score(attempt) > score(best):
            best = attempt
    return best


def attempts_left(max_attempts: int, made: int) -> int:
    return max(max_attempts - made, 0)
