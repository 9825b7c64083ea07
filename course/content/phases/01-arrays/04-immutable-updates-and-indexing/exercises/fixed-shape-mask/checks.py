"""Hidden checks for arrays-04.exercise.fixed-shape-mask: keep_above(x) keeps x's shape.

The drawn calls reuse the fixed calls' shapes ((4,), (3,), (2,) or 2 x 2) with fresh values:
each new shape is compiled plain, under jit and traced in the learner's run, and the fixed calls
already vary it.
"""

import numpy as np

from course.checks import Call, FunctionExercise

EXERCISE = FunctionExercise(
    "keep_above",
    params={"threshold": (2.0, 0.0, 3.5)},
    jit=True,
    jit_feedback="under jit shapes must be known before values are; a boolean mask x[x > t] "
                 "has a length that depends on the values, while jnp.where(x > t, x, 0.) keeps "
                 "x's shape",
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    t = params["threshold"]
    return [
        Call("the lesson's x", (np.array([1.0, 2.0, 3.0, 4.0], np.float32),)),
        Call("every value at or below the threshold", (np.array([t, t - 1.0, t - 5.0],
                                                                np.float32),)),
        Call("every value above the threshold", (np.array([t + 0.5, t + 3.0], np.float32),)),
        Call("a matrix", (np.array([[t + 1.0, t], [t - 2.0, t + 2.0]], np.float32),)),
        *(Call(f"random draw {i}", ((rng.normal(size=shape) * 3 + t).astype(np.float32),),
               "random")
          for i, shape in enumerate(((4,), (3,), (2,), (2, 2))[int(j)]
                                    for j in rng.integers(0, 4, size=3))),
    ]
