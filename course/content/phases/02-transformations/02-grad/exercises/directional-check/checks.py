"""Hidden checks for transforms-02.exercise.directional-check: directional_check(w, v).

The drawn calls reuse the fixed calls' lengths (2 or 3 entries) with fresh values: each new
length is compiled plain, under jit and traced in the learner's run.
"""

import numpy as np

from course.checks import Call, FunctionExercise, Values, check, traced

STEP = 1e-3
"""central_difference's h (lesson 02, step 4)."""
F_MAX = 2.0 * 5 * 4.0
"""|wavy(w)| = |a * sum(sin(k w) * w)| <= a * sum(|w_i|) on the hidden inputs: a drawn below 2,
at most 5 entries, |w_i| below 4 (normal draws)."""
NUMERIC_ATOL = 2 * float(np.finfo(np.float32).eps) * F_MAX / (2 * STEP)
"""Each float32 value of f rounds by up to eps * |f|; the difference of two can be off by twice
that, and the central difference divides it by 2h: ~4.8e-3. A central difference written
another way rounds differently and stays within it; a forward difference (error ~ h * |f''| / 2,
with |f''| up to a * k^2 * (|w| + 2) per entry) does not."""

EXERCISE = FunctionExercise(
    "directional_check",
    rtol=1e-5,
    atol=1e-5,
    tolerances={1: (1e-5, NUMERIC_ATOL)},
    substitutes=("wavy",),
    rules=(traced("both estimates are JAX computations on w: jax.grad cannot differentiate "
                  "NumPy"),)
)


def substitutes(params: dict, rng: np.random.Generator) -> dict[str, str]:
    """A wavy the learner never saw, a * sin(k w) * w for a and k drawn here: only
    jax.grad(wavy), not the derivative of the lesson's f derived by hand, gives its gradient."""
    a, k = (float(np.round(v, 3)) for v in (rng.uniform(0.5, 2.0), rng.uniform(1.2, 1.8)))
    return {"wavy": f"def wavy(w):\n    return {a} * jnp.sum(jnp.sin({k} * w) * w)\n"}


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    return [
        Call("the lesson's w and v", (np.array([0.5, -0.25], np.float32),
                                      np.array([1.0, -1.0], np.float32))),
        Call("at zero", (np.zeros(3, np.float32), np.ones(3, np.float32))),
        Call("a zero direction", (np.array([1.0, 2.0], np.float32), np.zeros(2, np.float32))),
        *(Call(f"random draw {i}", tuple(rng.normal(size=(2, size)).astype(np.float32)),
               "random") for i, size in enumerate(rng.choice((2, 3), size=3))),
    ]


@check("the autodiff and finite-difference derivatives agree", points=1)
def estimates_agree(v: Values) -> None:
    results = v.captured.calls.results if v.captured.calls else ()
    v.expect_true(bool(results), "`directional_check` was never called")
    for call, result in zip(v.inputs, results, strict=True):
        outputs = result.plain.outputs or ()
        values = [np.asarray(o.value, np.float64) for o in outputs] if len(outputs) == 2 else []
        v.expect_true(len(values) == 2 and bool(np.allclose(values[0], values[1], rtol=1e-2,
                                                            atol=1e-2)),
                      f"on {call.label}, the two derivatives should agree to about 1e-2 "
                      f"(a gradient bug shows as a large gap)")
