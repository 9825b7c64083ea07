"""Checks for arrays-01.exercise.edit-on-host."""

from course.checks import Values, check

NAMES = ("edited", "returned", "y")


@check("returned holds [10, 2, -1]", points=2)
def returned_values(v: Values) -> None:
    v.expect_close("returned", [10.0, 2.0, -1.0])


@check("edited (the NumPy copy) holds [10, 2, -1]", points=1)
def edited_values(v: Values) -> None:
    v.expect_close("edited", [10.0, 2.0, -1.0])


@check("y is unchanged: [10, 2, 3]", points=1, visible=False)
def y_unchanged(v: Values) -> None:
    v.expect_close("y", [10.0, 2.0, 3.0])
