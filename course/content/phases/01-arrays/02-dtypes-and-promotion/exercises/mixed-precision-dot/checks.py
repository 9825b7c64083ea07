"""Hidden checks for arrays-02.exercise.mixed-precision-dot: low_precision_matvec(w, v).

The drawn calls reuse the fixed calls' shapes (a 3 x 4 or 1 x 2 w) with fresh values: each new
shape is compiled plain, under jit and traced in the learner's run, and the fixed calls already
vary it.
"""

import numpy as np

from course.checks import Call, FunctionExercise, computes_in

EXERCISE = FunctionExercise(
    "low_precision_matvec",
    jit=True,
    rtol=1e-5,
    atol=1e-6,
    rules=(computes_in("dot_general", "bfloat16,bfloat16", "float32", "cast the float32 "
                       "operands down to bfloat16 inside the function (the master copies stay "
                       "float32) and ask jnp.dot for a float32 result "
                       "(preferred_element_type)"),),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    return [
        Call("the lesson's w and v", (np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(3, 4),
                                      np.array([0.1, 0.2, 0.3, 0.4], np.float32))),
        Call("values bfloat16 rounds", (np.array([[1.0 + 2**-10, 3.14159]], np.float32),
                                        np.array([1.0, 1.0 / 3.0], np.float32))),
        *(Call(f"random draw {i}", (rng.normal(size=(rows, cols)).astype(np.float32),
                                    rng.normal(size=cols).astype(np.float32)), "random")
          for i, (rows, cols) in enumerate(((3, 4), (1, 2))[int(j)]
                                           for j in rng.integers(0, 2, size=3))),
    ]
