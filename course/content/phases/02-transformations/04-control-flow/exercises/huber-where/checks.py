"""Hidden checks for transforms-04.exercise.huber-where: huber(x), elementwise, under jit.

The drawn calls reuse the fixed calls' shapes (5, 2, 1 or 2 x 2) with fresh values: each new
shape is compiled plain, under jit and traced in the learner's run.
"""

import numpy as np

from course.checks import Call, FunctionExercise, selects

EXERCISE = FunctionExercise(
    "huber",
    params={"d": (1.0, 0.5, 2.0)},
    jit=True,
    jit_feedback="under jit, x is a tracer: a Python if on |x| <= d raises "
                 "TracerBoolConversionError, while jnp.where chooses inside the program",
    rtol=1e-6,
    atol=1e-6,
    rules=(selects("it picks the quadratic or the linear part element by element, inside the "
                   "compiled program: a Python if needs a True or False that a traced x does "
                   "not have, and lax.cond takes one branch for the whole array"),)
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    d = params["d"]
    shapes = ((5,), (2,), (1,), (2, 2))  # the fixed calls' shapes
    return [
        Call("the lesson's x", (np.array([-2.0, -0.5, 0.0, 1.5, 3.0], np.float32),)),
        Call(f"exactly at -{d} and {d}", (np.array([-d, d], np.float32),)),
        Call("one large value", (np.array([100.0], np.float32),)),
        Call("a 2-D array", (np.array([[0.1, -4.0], [2.5, -0.25]], np.float32),)),
        *(Call(f"random draw {i}", ((3.0 * rng.normal(size=shapes[int(rng.integers(0, 4))]))
                                   .astype(np.float32),), "random") for i in range(3)),
    ]
