"""Hidden checks for transforms-01.exercise.static-length: head_power_sum(v, n), n static.

The drawn calls reuse the fixed calls' signatures (4 values, n of 2, 3 or 4) with fresh values:
each new (shape of v, n) is compiled plain, under jit and traced in the learner's run, and a
repeated signature is what shows jit compiling once per signature, not once per call.
"""

import numpy as np

from course.checks import Call, FunctionExercise, compiles_per_signature

EXERCISE = FunctionExercise(
    "head_power_sum",
    params={"p": (2, 3, 1)},
    rules=(compiles_per_signature(
        "decorate it with functools.partial(jax.jit, static_argnames=\"n\"): n decides the "
        "shape of v[:n], a traced n has no value while tracing, and jit then compiles once per "
        "distinct (shape of v, n), never once per call", static=(1,), points=2.0),),
)
"""Not ``jit=True``: the grader calls the learner's own jitted function as they declared it
(their static argument, none supplied by the grader), and counts its compilations."""


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    x = np.arange(4, dtype=np.float32)
    return [
        Call("the lesson's x, n = 2", (x, 2)),
        Call("the lesson's x, n = 4 (all of it)", (x, 4)),
        Call("n = 0 (an empty slice sums to 0)", (x, 0)),
        Call("negative values, n = 3", (np.array([-1.5, 2.0, -0.5, 4.0], np.float32), 3)),
        *(Call(f"random draw {i}", (rng.normal(size=4).astype(np.float32),
                                    (2, 3, 4)[int(rng.integers(0, 3))]), "random")
          for i in range(3)),
    ]
