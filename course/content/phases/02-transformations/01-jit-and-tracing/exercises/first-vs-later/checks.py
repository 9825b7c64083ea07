"""Hidden checks for transforms-01.exercise.first-vs-later: first_and_later(v) on hidden arrays."""

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
        *(Call(f"random draw {i}", (rng.normal(size=int(rng.integers(2, 2000)))
                                   .astype(np.float32),), "random") for i in range(3)),
    ]


