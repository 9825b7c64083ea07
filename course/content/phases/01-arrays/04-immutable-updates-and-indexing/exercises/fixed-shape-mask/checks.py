"""Hidden checks for arrays-04.exercise.fixed-shape-mask."""

from course.checks import Values, check

NAMES = ("fixed_shape", "selected", "x")


@check("fixed_shape keeps shape (4,) with zeros where x <= 2", points=2)
def fixed_shape_values(v: Values) -> None:
    v.expect_shape("fixed_shape", (4,))
    v.expect_close("fixed_shape", [0.0, 0.0, 3.0, 4.0])


@check("selected holds only the values greater than 2", points=2)
def selected_values(v: Values) -> None:
    v.expect_shape("selected", (2,))
    v.expect_close("selected", [3.0, 4.0])


@check("x is unchanged and the program runs to its end", points=1, visible=False)
def x_unchanged(v: Values) -> None:
    v.expect_close("x", [1.0, 2.0, 3.0, 4.0])
    v.expect_completed()
