"""Hidden checks for arrays-03.exercise.count-traces: count_traces(n_scalars, n_shapes)."""

import numpy as np

from course.checks import Call, FunctionExercise, counts_observed

EXERCISE = FunctionExercise(
    "count_traces",
    rules=(counts_observed("a Python side effect in the jitted function runs once per trace, "
                           "a jax.debug.callback on every call of the compiled function; "
                           "callbacks run asynchronously, so jax.effects_barrier() waits for "
                           "them before you count. The grader counts both during your call"),),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    return [
        Call("the lesson's three scalars and one new shape", (3, 1)),
        Call("no new shape", (2, 0)),
        Call("only new shapes", (0, 3)),
        *(Call(f"random draw {i}", (int(a), int(b)), "random")
          for i, (a, b) in enumerate(rng.integers(0, 6, size=(3, 2)))),
    ]
