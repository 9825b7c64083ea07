"""Hidden checks for transforms-03.exercise.batched-scores: scores(w, xs).

The drawn calls reuse the fixed calls' shapes (3 x 2, 1 x 3 or 4 x 2) with fresh values: each
new shape is compiled plain, under jit and traced in the learner's run, and the fixed batches of
1, 3 and 4 already show a trace that grows with the batch.
"""

import numpy as np

from course.checks import Call, FunctionExercise, vectorised

EXERCISE = FunctionExercise(
    "scores",
    params={"k": (1.0, 0.5, 2.0)},
    jit=True,
    jit_feedback="vmap returns a new function of arrays; it composes with jax.jit",
    rtol=1e-5,
    atol=1e-6,
    rules=(vectorised("score_one is written for one example; jax.vmap with "
                          "in_axes=(None, 0) maps it over the rows of xs and shares w"),),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    def draw(i: int) -> Call:
        rows, cols = ((3, 2), (1, 3), (4, 2))[int(rng.integers(0, 3))]  # the fixed shapes
        return Call(f"random draw {i}", (rng.normal(size=cols).astype(np.float32),
                                         rng.normal(size=(rows, cols)).astype(np.float32)),
                    "random")

    return [
        Call("the lesson's w and x", (np.array([0.5, -0.25], np.float32),
                                      np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32))),
        Call("a batch of one example", (np.array([1.0, 2.0, -1.0], np.float32),
                                        np.array([[0.5, 0.25, 1.0]], np.float32))),
        Call("zero weights", (np.zeros(2, np.float32),
                              np.arange(8, dtype=np.float32).reshape(4, 2))),
        *(draw(i) for i in range(3)),
    ]
