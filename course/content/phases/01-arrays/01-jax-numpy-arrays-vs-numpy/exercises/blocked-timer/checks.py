"""Hidden checks for arrays-01.exercise.blocked-timer: timed_stats(a) on hidden arrays.

The drawn calls reuse the fixed calls' lengths (3 or 1) with fresh values: each new shape is
compiled plain, under jit and traced in the learner's run, and the wait the timer must cover is
the harness's pending input, whatever the array's size.
"""

import numpy as np

from course.checks import Call, FunctionExercise, blocks, measured_durations

EXERCISE = FunctionExercise(
    "timed_stats",
    rtol=1e-5,
    ignore_outputs=(2,),
    rules=(blocks((0, 1), "the clock must stop after the work is done; without blocking it "
                  "measures only how long it took to queue. The grader hands you an array "
                  "that is still being computed, so only a function that waits returns "
                  "finished results"),
           measured_durations((2,), "the third output is the elapsed seconds of the blocked "
                              "work, time.perf_counter() - start, which includes waiting for "
                              "the input", blocked=True)),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    return [
        Call("the lesson's doubled", (np.array([20.0, 4.0, 6.0], np.float32),)),
        Call("one element", (np.array([-2.5], np.float32),)),
        Call("all negative", (np.array([-1.0, -7.0, -3.0], np.float32),)),
        *(Call(f"random draw {i}", (rng.normal(size=(3, 1)[int(rng.integers(0, 2))])
                                   .astype(np.float32),), "random") for i in range(3)),
    ]


