"""Hidden checks for arrays-01.exercise.blocked-timer: timed_stats(a) on hidden arrays."""

import numpy as np

from course.checks import Call, FunctionExercise, Values, calls_function, check

EXERCISE = FunctionExercise(
    "timed_stats",
    rtol=1e-5,
    ignore_outputs=(2,),
    rules=(calls_function("block_until_ready", "the clock must stop after the work is done; "
                          "without blocking it measures only how long it took to queue"),
           calls_function("perf_counter", "time.perf_counter is the clock for short "
                          "durations")),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    return [
        Call("the lesson's doubled", (np.array([20.0, 4.0, 6.0], np.float32),)),
        Call("one element", (np.array([-2.5], np.float32),)),
        Call("all negative", (np.array([-1.0, -7.0, -3.0], np.float32),)),
        *(Call(f"random draw {i}", (rng.normal(size=int(rng.integers(2, 50)))
                                   .astype(np.float32),), "random") for i in range(3)),
    ]


@check("`timed_stats` returns a measured, non-negative number of seconds last", points=1)
def seconds_measured(v: Values) -> None:
    results = v.captured.calls.results if v.captured.calls else ()
    v.expect_true(bool(results), "`timed_stats` was never called")
    for call, result in zip(v.inputs, results, strict=True):
        outputs = result.plain.outputs or ()
        seconds = outputs[2].value if len(outputs) == 3 else None
        v.expect_true(isinstance(seconds, float | int) and not isinstance(seconds, bool)
                      and seconds >= 0.0,
                      f"on {call.label}, the third output should be the elapsed seconds as a "
                      f"Python float (time.perf_counter() - start), got {seconds!r}")
