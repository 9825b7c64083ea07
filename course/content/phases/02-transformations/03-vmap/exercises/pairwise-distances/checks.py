"""Hidden checks for transforms-03.exercise.pairwise-distances: pairwise(a, b).

The drawn calls reuse the fixed calls' shapes (n, m, d of 3, 3, 2 or 3, 2, 2 or 1, 4, 3) with
fresh values: each new shape is compiled plain, under jit and traced in the learner's run, and
the fixed tables already show a trace that grows with n and m.
"""

import numpy as np

from course.checks import Call, FunctionExercise, vectorised

EXERCISE = FunctionExercise(
    "pairwise",
    params={"p": (1, 2, 3)},
    jit=True,
    jit_feedback="nested vmaps are one batched program, which jits like any array function",
    rtol=1e-5,
    atol=1e-5,
    rules=(vectorised("a vmap of a vmap turns the distance of one pair into the "
                          "table of all pairs"),),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    points = np.array([[0.0, 0.0], [3.0, 4.0], [1.0, 1.0]], np.float32)

    def draw(i: int) -> Call:
        n, m, d = ((3, 3, 2), (3, 2, 2), (1, 4, 3))[int(rng.integers(0, 3))]  # fixed shapes
        return Call(f"random draw {i}", (rng.normal(size=(n, d)).astype(np.float32),
                                         rng.normal(size=(m, d)).astype(np.float32)), "random")

    return [
        Call("the lesson's points against themselves", (points, points)),
        Call("three points against two (the table is 3 x 2, not 2 x 3)",
             (points, np.array([[0.0, 0.0], [1.0, 0.0]], np.float32))),
        Call("one point against four in 3-D", (np.ones((1, 3), np.float32),
                                               np.eye(4, 3, dtype=np.float32))),
        *(draw(i) for i in range(3)),
    ]
