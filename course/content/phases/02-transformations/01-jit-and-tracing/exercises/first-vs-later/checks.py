"""Hidden checks for transforms-01.exercise.first-vs-later: first_and_later(v) on hidden arrays."""

import numpy as np

from course.checks import Call, FunctionExercise, Values, calls_function, check

EXERCISE = FunctionExercise(
    "first_and_later",
    params={"k": (2.0, 3.0, 0.5)},
    rtol=1e-5,
    ignore_outputs=(1, 2),
    rules=(calls_function("block_until_ready", "dispatch is asynchronous: without blocking, "
                          "the clock stops when the work is queued, not when it is done"),
           calls_function("perf_counter", "time.perf_counter is the clock for short "
                          "durations")),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    return [
        Call("a short ramp", (np.linspace(-3.0, 3.0, 8, dtype=np.float32),)),
        Call("one element", (np.array([0.25], np.float32),)),
        Call("all zeros", (np.zeros(16, np.float32),)),
        *(Call(f"random draw {i}", (rng.normal(size=int(rng.integers(2, 2000)))
                                   .astype(np.float32),), "random") for i in range(3)),
    ]


@check("`first_and_later` returns two measured, non-negative durations in seconds", points=1)
def durations_measured(v: Values) -> None:
    results = v.captured.calls.results if v.captured.calls else ()
    v.expect_true(bool(results), "`first_and_later` was never called")
    for call, result in zip(v.inputs, results, strict=True):
        outputs = result.plain.outputs or ()
        times = [o.value for o in outputs[1:]] if len(outputs) == 3 else []
        v.expect_true(len(times) == 2 and all(isinstance(t, float | int)
                                              and not isinstance(t, bool) and t >= 0.0
                                              for t in times),
                      f"on {call.label}, the second and third outputs should be the elapsed "
                      f"seconds of the first and of a later call, as Python floats, got "
                      f"{times!r}")
