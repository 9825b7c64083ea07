"""Hidden checks for transforms-01.exercise.first-vs-later: first_and_later(v) on hidden arrays.

The drawn calls reuse the fixed calls' lengths (8, 1 or 16) with fresh values: each new length
is compiled plain, under jit and traced in the learner's run, and the learner's own fresh jit
compiles on every call whatever its length, so the first call is the slower one all the same.
"""

import numpy as np

from course.checks import Call, FunctionExercise, blocks, measured_durations

EXERCISE = FunctionExercise(
    "first_and_later",
    params={"k": (2.0, 3.0, 0.5)},
    rtol=1e-5,
    ignore_outputs=(1, 2),
    rules=(blocks((0,), "dispatch is asynchronous: without blocking, the clock stops when the "
                  "work is queued, not when it is done. The grader hands you an array that is "
                  "still being computed, so only a function that waits returns a finished "
                  "result"),
           measured_durations((1, 2), "the second and third outputs are the seconds of the "
                              "first call (trace, compile, run) and of a later one (run only), "
                              "each clock stopped after block_until_ready", first_slower=True,
                              blocked=True))
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    return [
        Call("a short ramp", (np.linspace(-3.0, 3.0, 8, dtype=np.float32),)),
        Call("one element", (np.array([0.25], np.float32),)),
        Call("all zeros", (np.zeros(16, np.float32),)),
        *(Call(f"random draw {i}", (rng.normal(size=(8, 1, 16)[int(rng.integers(0, 3))])
                                   .astype(np.float32),), "random") for i in range(3)),
    ]


