"""Hidden checks for arrays-03.exercise.split-keys: three_draws(seed) for hidden seeds."""

import numpy as np

from course.checks import Call, FunctionExercise, distinct_outputs

EXERCISE = FunctionExercise(
    "three_draws",
    params={"size": (4, 3, 5)},
    rules=(distinct_outputs("split the root key into one subkey per draw; reusing a key "
                            "repeats its numbers"),),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    return [
        Call("the lesson's seed 42", (42,)),
        Call("seed 0", (0,)),
        *(Call(f"random seed {i}", (int(seed),), "random")
          for i, seed in enumerate(rng.integers(1, 2**31 - 1, size=3))),
    ]
