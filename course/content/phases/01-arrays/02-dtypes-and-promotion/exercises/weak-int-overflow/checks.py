"""Checks for arrays-02.exercise.weak-int-overflow."""

from course.checks import Values, check

NAMES = ("scaled", "safe", "scaled_dtype", "safe_dtype")


@check("counts * 100 stays int8 and wraps to [100, -56, 44]", points=1)
def wrapped(v: Values) -> None:
    v.expect_equal("scaled_dtype", "int8")
    v.expect_equal("scaled", [100, -56, 44])


@check("safe holds [100, 200, 300]", points=2)
def safe_values(v: Values) -> None:
    v.expect_equal("safe", [100, 200, 300])


@check("safe is int32", points=1, visible=False)
def safe_dtype(v: Values) -> None:
    v.expect_equal("safe_dtype", "int32")
