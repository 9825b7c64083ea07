"""Checks for arrays-03.exercise.count-traces."""

from course.checks import Values, check

NAMES = ("traces", "runs", "last")


@check("the function was traced twice: scalar float32, then shape (2,)", points=2)
def trace_count(v: Values) -> None:
    v.expect_equal("traces", 2)


@check("the debug callback ran on all four calls", points=2)
def run_count(v: Values) -> None:
    v.expect_equal("runs", 4)


@check("the last call squared [1, 2] to [1, 4]", points=1, visible=False)
def last_value(v: Values) -> None:
    v.expect_close("last", [1.0, 4.0])
