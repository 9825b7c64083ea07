"""Hidden checks for arrays-04.exercise.mask-tail: mask_tail(x) on inputs the learner never saw.

The drawn calls reuse the fixed calls' lengths 4 and 5 (longer than every n, so some values
survive) with fresh values: each new shape is compiled plain, under jit and traced in the
learner's run, and the fixed calls already vary it.
"""

import numpy as np

from course.checks import Call, FunctionExercise, functional_update, no_item_assignment

EXERCISE = FunctionExercise(
    "mask_tail",
    params={"n": (2, 1, 3)},
    jit=True,
    jit_feedback="a slice with a fixed length keeps the shape known before the values are, "
                 "so the update compiles",
    rules=(functional_update("x.at[-n:].set(0.) describes the new array and leaves x as it was"),
           no_item_assignment()),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    n = params["n"]
    return [
        Call("the lesson's x", (np.array([1.0, 2.0, 3.0, 4.0], np.float32),)),
        Call(f"exactly {n} elements", (np.arange(1, n + 1, dtype=np.float32),)),
        Call("negative values and zeros", (np.array([-3.0, 0.0, -1.5, 0.0, 2.5], np.float32),)),
        *(Call(f"random draw {i}", (rng.normal(size=(4, 5)[int(rng.integers(0, 2))])
                                   .astype(np.float32),), "random") for i in range(3)),
    ]
