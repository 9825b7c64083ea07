"""``ast.parse`` behind one lock per process, retried past a spurious ``SystemError``.

CPython 3.11 counts the AST constructor's recursion depth in per-interpreter state, so two
threads building AST objects at once can fail with a spurious ``SystemError: AST constructor
recursion depth mismatch`` (python/cpython#106905, seen here when `course check` graded two
items at once). The lock keeps our own parses apart; it cannot hold off other users of the AST
constructor in the process: 3.11's ``traceback`` parses source lines to draw its ``^^^`` marks,
so a thread that logs an exception can collide with a parse (seen in CI: a live server logging
a 500 while `course check` parsed). The state is reset at the start of every conversion and the
parse itself is pure, so such a failure is retried.
"""

from __future__ import annotations

import ast
import threading
from collections.abc import Callable

_LOCK = threading.Lock()
TRIES = 5
_MISMATCH = "AST constructor recursion depth mismatch"


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse(source, filename)``, one thread at a time."""
    with _LOCK:
        return retried(lambda: ast.parse(source, filename=filename))


def retried(build: Callable[[], ast.Module]) -> ast.Module:
    """``build()``, again after the interpreter's spurious AST SystemError (up to ``TRIES``
    times); any other error, a SyntaxError included, at once."""
    for attempt in range(1, TRIES + 1):
        try:
            return build()
        except SystemError as exc:
            if _MISMATCH not in str(exc) or attempt == TRIES:
                raise
    raise AssertionError("unreachable")
