"""Hidden checks for arrays-02.exercise.keep-bfloat16: shift_and_scale stays in bfloat16.

The drawn calls reuse the fixed calls' shapes ((5,), (2,) or (2, 3)) with fresh values: each new
shape is compiled plain, under jit and traced in the learner's run (random sizes cost ~1.0 s of
a 3.8 s run, these ~0.2 s), and the fixed calls already vary it.
"""

import numpy as np

from course.checks import Call, Cast, FunctionExercise

EXERCISE = FunctionExercise(
    "shift_and_scale",
    params={"scale": (2.0, 0.5, 4.0)},
    jit=True,
    rtol=1e-2,
    atol=1e-2,
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    def pair(activations: np.ndarray, bias: np.ndarray) -> tuple[Cast, np.ndarray]:
        return Cast(activations.astype(np.float32), "bfloat16"), bias.astype(np.float32)

    return [
        Call("the lesson's activations and bias", pair(np.linspace(-1.0, 1.0, 5),
                                                       np.full(5, 0.25))),
        Call("zero bias", pair(np.array([3.0, -2.0]), np.zeros(2))),
        Call("a matrix", pair(np.arange(6.0).reshape(2, 3) - 2.5, np.full((2, 3), -0.5))),
        *(Call(f"random draw {i}", pair(rng.normal(size=shape), rng.normal(size=shape)), "random")
          for i, shape in enumerate(((5,), (2,), (2, 3))[int(j)]
                                    for j in rng.integers(0, 3, size=3))),
    ]
