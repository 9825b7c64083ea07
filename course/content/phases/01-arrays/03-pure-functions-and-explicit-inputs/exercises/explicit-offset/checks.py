"""Checks for arrays-03.exercise.explicit-offset."""

from course.checks import Values, check

NAMES = ("shifted_a", "shifted_b", "x")


@check("add_offset(x, 1.0) gives [2, 3, 4]", points=1)
def first_offset(v: Values) -> None:
    v.expect_close("shifted_a", [2.0, 3.0, 4.0])


@check("add_offset(x, 5.0) gives [6, 7, 8], not a stale offset", points=2)
def second_offset(v: Values) -> None:
    v.expect_close("shifted_b", [6.0, 7.0, 8.0])


@check("x is unchanged", points=1, visible=False)
def x_unchanged(v: Values) -> None:
    v.expect_close("x", [1.0, 2.0, 3.0])
