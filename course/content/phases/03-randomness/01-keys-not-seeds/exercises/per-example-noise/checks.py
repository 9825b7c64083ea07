"""Hidden checks for randomness-01.exercise.per-example-noise: add_noise(seed, x).

The outputs are compared with the reference's, which draws row i's noise from
split(key(seed), n)[i]: one key for the whole array, a reused key or NumPy's generator give
other numbers. vmap over the keys is judged on the trace (a Python loop over the rows grows it).
"""

import numpy as np

from course.checks import Call, FunctionExercise, vectorised

EXERCISE = FunctionExercise(
    "add_noise",
    params={"sigma": (0.1, 0.5, 2.0)},
    jit=True,
    jit_feedback="a key is an array argument like any other: random draws trace and jit",
    rtol=1e-5,
    atol=1e-6,
    rules=(vectorised("split gives one key per row and jax.vmap maps one row's draw over "
                      "them: one batched program, whatever the number of rows"),),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    # Drawn in the fixed calls' shapes, with fresh seeds and values: each new shape is a
    # compilation (plain, under jit and traced), which made a grading cost several CPU
    # seconds more than the behaviour it checks (issue 23).
    def draw(i: int) -> Call:
        rows, cols = ((4, 3), (1, 2))[int(rng.integers(0, 2))]
        return Call(f"random draw {i}", (int(rng.integers(0, 2**31 - 1)),
                                         rng.normal(size=(rows, cols)).astype(np.float32)),
                    "random")

    return [
        Call("the lesson's zeros, seed 0", (0, np.zeros((4, 3), np.float32))),
        Call("one row", (5, np.ones((1, 2), np.float32))),
        Call("another seed, same x", (1, np.zeros((4, 3), np.float32))),
        *(draw(i) for i in range(3)),
    ]
