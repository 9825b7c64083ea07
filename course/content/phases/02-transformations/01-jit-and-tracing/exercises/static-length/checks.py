"""Hidden checks for transforms-01.exercise.static-length: head_power_sum(v, n), n static."""

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
        *(Call(f"random draw {i}", (rng.normal(size=int(size)).astype(np.float32),
                                    int(rng.integers(1, size + 1))), "random")
          for i, size in enumerate(rng.integers(2, 12, size=3))),
    ]
