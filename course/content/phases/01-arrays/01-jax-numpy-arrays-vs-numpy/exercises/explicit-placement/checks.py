"""Hidden checks for arrays-01.exercise.explicit-placement: weighted_sum on hidden inputs.

The drawn calls reuse the fixed calls' lengths (3, 1 or 4) with fresh values: each new shape is
compiled plain, under jit and traced in the learner's run, and the fixed calls already vary it.
"""

import numpy as np

from course.checks import Call, FunctionExercise, placed

EXERCISE = FunctionExercise(
    "weighted_sum",
    rtol=1e-5,
    rules=(placed("cpu:0", "jax.device_put(weights, jax.devices('cpu')[0]) commits the weights "
                  "to the first CPU device, and a result computed from committed inputs stays "
                  "committed there"),),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    return [
        Call("the lesson's weights and doubled", (np.array([0.5, 0.25, 0.25], np.float32),
                                                  np.array([20.0, 4.0, 6.0], np.float32))),
        Call("one weight", (np.array([2.0], np.float32), np.array([-3.0], np.float32))),
        Call("zero weights", (np.zeros(4, np.float32), np.arange(4, dtype=np.float32))),
        *(Call(f"random draw {i}", tuple(rng.normal(size=(2, size)).astype(np.float32)),
               "random") for i, size in enumerate(rng.choice((3, 1, 4), size=3))),
    ]
