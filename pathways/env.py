"""Typed readers of the environment, shared by the service, the consumer and the grader.

Each process reads its configuration once (``lti_service.core.config.Config.from_env``,
``grading_contract.config.load_queue_config``, ``grader_worker.config.load_config``) through an
``Env``: a value that is not what its variable needs fails at start-up with an ``EnvError`` that
names the variable, the value (cut short), the expected type or range and where the variable is
documented, instead of a bare ``ValueError: invalid literal for int()`` from deep inside.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

DOCS = "docs/CONFIGURATION.md"
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})
_SHOWN = 40  # characters of a wrong value repeated in the error (it may be a pasted secret)


class EnvError(ValueError):
    """A variable's value is not what its reader needs (the message says what and where)."""

    def __init__(self, name: str, value: str, expected: str, docs: str = DOCS) -> None:
        shown = value if len(value) <= _SHOWN else value[:_SHOWN] + "..."
        super().__init__(f"{name}={shown!r}: expected {expected} (see {name} in {docs})")
        self.name, self.expected = name, expected


class Env:
    """Reads named variables of one environment (``os.environ`` unless given), typed and
    range-checked; an unset or empty variable gives the default."""

    def __init__(self, environ: Mapping[str, str] | None = None, *, docs: str = DOCS) -> None:
        self.environ: Mapping[str, str] = os.environ if environ is None else environ
        self.docs = docs

    def raw(self, name: str) -> str | None:
        value = self.environ.get(name)
        return None if value is None or value.strip() == "" else value

    def error(self, name: str, expected: str) -> EnvError:
        return EnvError(name, self.environ.get(name, ""), expected, self.docs)

    def text(self, name: str, default: str) -> str:
        value = self.raw(name)
        return default if value is None else value

    def optional(self, name: str) -> str | None:
        return self.raw(name)

    def integer(self, name: str, default: int, *, low: int | None = None,
            high: int | None = None) -> int:
        value = self.raw(name)
        expected = "a whole number" + _range(low, high)
        if value is None:
            return default
        try:
            number = int(value.strip())
        except ValueError:
            raise self.error(name, expected) from None
        if (low is not None and number < low) or (high is not None and number > high):
            raise self.error(name, expected)
        return number

    def number(self, name: str, default: float, *, low: float | None = None,
              high: float | None = None, above: float | None = None) -> float:
        value = self.raw(name)
        expected = "a number" + (f" above {above:g}" if above is not None else "") + \
            _range(low, high)
        if value is None:
            return default
        try:
            number = float(value.strip())
        except ValueError:
            raise self.error(name, expected) from None
        if not math.isfinite(number) or (above is not None and number <= above) \
                or (low is not None and number < low) or (high is not None and number > high):
            raise self.error(name, expected)
        return number

    def flag(self, name: str, default: bool) -> bool:
        value = self.raw(name)
        if value is None:
            return default
        word = value.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
        raise self.error(name, "1/true/yes/on or 0/false/no/off")

    def choice(self, name: str, default: str, options: tuple[str, ...], *,
               upper: bool = False) -> str:
        value = self.text(name, default).strip()
        value = value.upper() if upper else value
        if value not in options:
            raise self.error(name, "one of " + ", ".join(options))
        return value


def _range(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f" from {low:g} to {high:g}"
    if low is not None:
        return f" of at least {low:g}"
    if high is not None:
        return f" of at most {high:g}"
    return ""
