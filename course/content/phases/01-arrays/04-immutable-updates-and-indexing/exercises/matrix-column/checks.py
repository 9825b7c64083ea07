"""Hidden checks for arrays-04.exercise.matrix-column."""

from course.checks import Values, check

NAMES = ("matrix", "updated_matrix")

ORIGINAL = [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]]
UPDATED = [[0.0, 1.0, -1.0], [3.0, 4.0, -1.0], [6.0, 7.0, -1.0]]


@check("matrix is the (3, 3) matrix of 0 through 8", points=1)
def matrix_values(v: Values) -> None:
    v.expect_close("matrix", ORIGINAL)


@check("updated_matrix has -1 in its last column and the other cells unchanged", points=2)
def updated_values(v: Values) -> None:
    v.expect_close("updated_matrix", UPDATED)


@check("matrix still holds 0 through 8 after the update", points=1, visible=False)
def matrix_unchanged(v: Values) -> None:
    v.expect_close("matrix", ORIGINAL)
    v.expect_completed()
