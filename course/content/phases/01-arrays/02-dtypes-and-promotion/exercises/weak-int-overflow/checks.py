"""Hidden checks for arrays-02.exercise.weak-int-overflow: widen_and_scale(counts) on int8.

The drawn calls reuse the fixed calls' lengths (3 or 1) with fresh counts: each new shape is
compiled plain, under jit and traced in the learner's run, and the fixed calls already vary it.
"""

import numpy as np

from course.checks import Call, FunctionExercise, computes_in

EXERCISE = FunctionExercise(
    "widen_and_scale",
    params={"factor": (100, 60, 300)},
    jit=True,
    rules=(computes_in("mul", "int32,int32", "int32", "widen the operand before the product "
                       "(counts.astype(jnp.int32)); widening the result after it keeps the "
                       "wrapped values"),),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    return [
        Call("the lesson's counts", (np.array([1, 2, 3], np.int8),)),
        Call("the int8 extremes", (np.array([127, -128, 0], np.int8),)),
        Call("one count", (np.array([-1], np.int8),)),
        *(Call(f"random draw {i}", (rng.integers(-128, 128, size=(3, 1)[int(rng.integers(0, 2))])
                                   .astype(np.int8),), "random") for i in range(3)),
    ]
