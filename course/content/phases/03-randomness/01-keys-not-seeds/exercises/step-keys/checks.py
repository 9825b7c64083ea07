"""Hidden checks for randomness-01.exercise.step-keys: step_uniforms(seed, steps).

Row i must be uniform(fold_in(key(seed), steps[i]), (d,)): the reference's numbers. A key made
from seed + step, or split keys indexed by position, give other numbers, and so does a draw
that depends on the order of the steps rather than on their values.
"""

import numpy as np

from course.checks import Call, FunctionExercise, traced

EXERCISE = FunctionExercise(
    "step_uniforms",
    params={"d": (2, 3, 1)},
    jit=True,
    jit_feedback="fold_in takes a traced step number: the key for any step is computed in the "
                 "compiled program",
    rtol=1e-6,
    atol=1e-7,
    rules=(traced("fold_in and uniform are JAX operations; NumPy's generator has no keys"),),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    # Drawn in the fixed calls' shapes, with fresh seeds and values: each new shape is a
    # compilation (plain, under jit and traced), which made a grading cost several CPU
    # seconds more than the behaviour it checks (issue 23).
    def draw(i: int) -> Call:
        steps = rng.integers(0, 100_000, size=(3, 2)[int(rng.integers(0, 2))]).astype(np.int32)
        return Call(f"random draw {i}", (int(rng.integers(0, 2**31 - 1)), steps), "random")

    return [
        Call("the lesson's steps 0, 1, 1000", (2, np.array([0, 1, 1000], np.int32))),
        Call("one step, reversed order does not matter", (2, np.array([1000, 1, 0], np.int32))),
        Call("the same step twice", (9, np.array([5, 5], np.int32))),
        *(draw(i) for i in range(3)),
    ]
