"""Checks for arrays-01.exercise.explicit-placement."""

from course.checks import Values, check

NAMES = ("placed_weights", "weighted_sum", "n_devices", "committed")


@check("placed_weights holds [0.5, 0.25, 0.25]", points=1)
def placed_values(v: Values) -> None:
    v.expect_close("placed_weights", [0.5, 0.25, 0.25])


@check("weighted_sum is 0.5*20 + 0.25*4 + 0.25*6 = 12.5", points=2)
def weighted(v: Values) -> None:
    v.expect_close("weighted_sum", 12.5)


@check("placed_weights sits on one device and is committed to it", points=1, visible=False)
def placement(v: Values) -> None:
    v.expect_equal("n_devices", 1)
    v.expect_equal("committed", True)
