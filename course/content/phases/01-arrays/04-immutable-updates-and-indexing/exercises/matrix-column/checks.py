"""Hidden checks for arrays-04.exercise.matrix-column: fill_last_column(matrix) on hidden shapes.

The drawn calls reuse the fixed calls' shapes (3 x 3, 2 x 1, 1 x 4 or 2 x 5) with fresh values:
each new shape is compiled plain, under jit and traced in the learner's run, and the fixed calls
already vary it.
"""

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
    def draw() -> np.ndarray:
        shape = ((3, 3), (2, 1), (1, 4), (2, 5))[int(rng.integers(0, 4))]
        return rng.normal(size=shape).astype(np.float32)

    return [
        Call("the lesson's 3 x 3 matrix", (np.arange(9, dtype=np.float32).reshape(3, 3),)),
        Call("one column", (np.array([[1.0], [2.0]], np.float32),)),
        Call("one row", (np.array([[5.0, 6.0, 7.0, 8.0]], np.float32),)),
        Call("a wide matrix", (np.arange(10, dtype=np.float32).reshape(2, 5),)),
        *(Call(f"random draw {i}", (draw(),), "random") for i in range(3)),
    ]
