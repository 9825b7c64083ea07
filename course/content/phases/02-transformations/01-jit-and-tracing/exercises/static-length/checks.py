"""Hidden checks for transforms-01.exercise.static-length: head_power_sum(v, n), n static."""

import ast

import numpy as np

from course.checks import Call, FunctionExercise, Rule


def _declares_static(fn: ast.FunctionDef) -> bool:
    """A decorator of the function passes static_argnums or static_argnames to jit."""
    return any(isinstance(node, ast.keyword) and node.arg in ("static_argnums", "static_argnames")
               for decorator in fn.decorator_list for node in ast.walk(decorator))


EXERCISE = FunctionExercise(
    "head_power_sum",
    params={"p": (2, 3, 1)},
    jit=True,
    static_argnums=(1,),
    jit_feedback="n decides the shape of v[:n]; a traced n has no value while tracing, so it "
                 "must be a static argument",
    rules=(Rule("is jitted with n static",
                "Decorate it with functools.partial(jax.jit, static_argnames=\"n\"): a traced "
                "n cannot set a slice's length.", _declares_static),),
)


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
