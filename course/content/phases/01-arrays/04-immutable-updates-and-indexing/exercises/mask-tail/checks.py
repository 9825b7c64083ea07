"""Hidden checks for arrays-04.exercise.mask-tail."""

from course.checks import Values, check

NAMES = ("masked", "x")


@check("masked holds [1, 2, 0, 0]", points=2)
def masked_values(v: Values) -> None:
    v.expect_close("masked", [1.0, 2.0, 0.0, 0.0])


@check("masked keeps x's shape (4,) and dtype float32", points=1)
def masked_shape(v: Values) -> None:
    v.expect_shape("masked", (4,))
    v.expect_dtype("masked", "float32")


@check("x is unchanged", points=1, visible=False)
def x_unchanged(v: Values) -> None:
    v.expect_close("x", [1.0, 2.0, 3.0, 4.0])


@check("the program runs to its end", points=1, visible=False)
def completed(v: Values) -> None:
    v.expect_completed()
