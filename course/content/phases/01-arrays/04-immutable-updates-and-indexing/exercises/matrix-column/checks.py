"""Hidden checks for arrays-04.exercise.matrix-column: fill_last_column(matrix) on hidden shapes."""

import numpy as np

from course.checks import Call, FunctionExercise, functional_update, no_item_assignment

EXERCISE = FunctionExercise(
    "fill_last_column",
    params={"value": (-1.0, 0.5, 9.0)},
    jit=True,
    jit_feedback="a slice update keeps the matrix's shape, so it compiles for any values",
    rules=(functional_update("matrix.at[:, -1].set(value) returns the updated matrix and leaves "
                          "the original as it was"),
           no_item_assignment()),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    def draw(rows: int, cols: int) -> np.ndarray:
        return rng.normal(size=(rows, cols)).astype(np.float32)

    return [
        Call("the lesson's 3 x 3 matrix", (np.arange(9, dtype=np.float32).reshape(3, 3),)),
        Call("one column", (np.array([[1.0], [2.0]], np.float32),)),
        Call("one row", (np.array([[5.0, 6.0, 7.0, 8.0]], np.float32),)),
        Call("a wide matrix", (np.arange(10, dtype=np.float32).reshape(2, 5),)),
        *(Call(f"random draw {i}", (draw(int(rng.integers(1, 6)), int(rng.integers(1, 6))),),
               "random") for i in range(3)),
    ]
