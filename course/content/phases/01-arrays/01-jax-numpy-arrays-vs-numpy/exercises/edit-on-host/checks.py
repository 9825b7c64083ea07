"""Hidden checks for arrays-01.exercise.edit-on-host: edit_on_host(y) on hidden arrays.

The drawn calls reuse the fixed calls' lengths (3, 1 or 2) with fresh values: each new shape is
compiled plain, under jit and traced in the learner's run, and the fixed calls already vary it.
"""

import numpy as np

from course.checks import Call, FunctionExercise, on_host

EXERCISE = FunctionExercise(
    "edit_on_host",
    params={"value": (-1.0, 0.0, 42.0)},
    rules=(on_host("np.array(y) copies the device value into a writable NumPy buffer (np.asarray "
                   "gives a read-only view), and jnp.asarray sends the edited copy back as a "
                   "new JAX array; JAX cannot trace that round trip, which is how the grader "
                   "sees it"),),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    return [
        Call("the lesson's y", (np.array([10.0, 2.0, 3.0], np.float32),)),
        Call("one element", (np.array([7.0], np.float32),)),
        Call("last entry already the value", (np.array([1.0, params["value"]], np.float32),)),
        *(Call(f"random draw {i}", (rng.normal(size=(3, 1, 2)[int(rng.integers(0, 3))])
                                   .astype(np.float32),), "random") for i in range(3)),
    ]
