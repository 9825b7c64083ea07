"""Checks for arrays-01.exercise.blocked-timer."""

from course.checks import Values, check

NAMES = ("stats_sum", "stats_max", "all_ready", "seconds")


@check("stats_sum is the sum of doubled, 30", points=1)
def total(v: Values) -> None:
    v.expect_close("stats_sum", 30.0)


@check("stats_max is the largest entry of doubled, 20", points=1)
def largest(v: Values) -> None:
    v.expect_close("stats_max", 20.0)


@check("every output leaf is ready after timed returns", points=1)
def ready(v: Values) -> None:
    v.expect_equal("all_ready", True)


@check("seconds is a measured, non-negative duration", points=1, visible=False)
def duration(v: Values) -> None:
    seconds = v.array("seconds")
    v.expect_true(seconds.shape == () and float(seconds) >= 0.0,
                  f"`seconds` should be one non-negative number of seconds, got {seconds}")
