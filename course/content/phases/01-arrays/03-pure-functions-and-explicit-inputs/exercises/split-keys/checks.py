"""Checks for arrays-03.exercise.split-keys."""

import numpy as np

from course.checks import Values, check

NAMES = ("a", "b", "c", "again")


def _uniform4(v: Values, name: str) -> np.ndarray:
    v.expect_shape(name, (4,))
    values = v.array(name)
    v.expect_true(bool(np.all((values >= 0.0) & (values < 1.0))),
                  f"`{name}` should hold uniform numbers in [0, 1), got {values}")
    return values


@check("a, b and c are four uniform numbers each", points=1)
def shapes(v: Values) -> None:
    for name in ("a", "b", "c"):
        _uniform4(v, name)


@check("a, b and c differ: each subkey is used once", points=2)
def distinct(v: Values) -> None:
    a, b, c = (_uniform4(v, n) for n in ("a", "b", "c"))
    v.expect_true(not np.array_equal(a, b) and not np.array_equal(b, c)
                  and not np.array_equal(a, c),
                  "two of a, b, c are identical: draw each one from its own subkey")


@check("redrawing from k1 reproduces a exactly", points=1, visible=False)
def reproducible(v: Values) -> None:
    v.expect_equal("again", _uniform4(v, "a"))
