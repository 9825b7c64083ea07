"""Hidden checks for transforms-04.exercise.spring-scan: simulate(x0, v0, forces) with lax.scan.

The drawn calls reuse the fixed calls' step counts (8, 5, 1 or 12) with fresh values: each new
count is compiled plain, under jit and traced in the learner's run, and the fixed counts
already show a trace that grows with the steps.
"""

import numpy as np

from course.checks import Call, FunctionExercise, loops

EXERCISE = FunctionExercise(
    "simulate",
    params={"k": (4.0, 1.0, 9.0)},
    jit=True,
    jit_feedback="lax.scan keeps the loop in the compiled program whatever the length of forces",
    rtol=1e-5,
    atol=1e-6,
    rules=(loops("the state (x, v) is carried from one step to the next, and "
                          "the positions are stacked as the outputs"),),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    def scalar(value: float) -> np.ndarray:
        return np.array(value, np.float32)

    def draw(i: int) -> Call:
        steps = (8, 5, 1, 12)[int(rng.integers(0, 4))]  # the fixed calls' step counts
        return Call(f"random draw {i}", (scalar(rng.normal()), scalar(rng.normal()),
                                         rng.normal(size=steps).astype(np.float32)), "random")

    return [
        Call("the lesson's start, no force", (scalar(1.0), scalar(0.0), np.zeros(8, np.float32))),
        Call("at rest with no force", (scalar(0.0), scalar(0.0), np.zeros(5, np.float32))),
        Call("one step", (scalar(0.5), scalar(-1.0), np.array([2.0], np.float32))),
        Call("a constant push from rest", (scalar(0.0), scalar(0.0), np.ones(12, np.float32))),
        *(draw(i) for i in range(3)),
    ]
