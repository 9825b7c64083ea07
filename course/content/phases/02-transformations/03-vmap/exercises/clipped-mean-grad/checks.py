"""Hidden checks for transforms-03.exercise.clipped-mean-grad: clipped_mean_grad(w, x, y).

The drawn calls reuse the fixed calls' shapes (3 examples of 2 features, or 2 of 1) with fresh
values: each new shape is compiled plain, under jit and traced in the learner's run.
"""

import numpy as np

from course.checks import Call, FunctionExercise, vectorised

EXERCISE = FunctionExercise(
    "clipped_mean_grad",
    params={"clip": (5.0, 1.0, 20.0)},
    jit=True,
    jit_feedback="vmap, grad and the clipping are array operations, so the step jits",
    rtol=1e-5,
    atol=1e-5,
    substitutes=("loss_one",),
    rules=(vectorised("clipping needs each example's own gradient, which "
                          "jax.vmap of jax.grad computes in one batched program"),),
)


def substitutes(params: dict, rng: np.random.Generator) -> dict[str, str]:
    """A loss_one the learner never saw (its gradient still zero at a perfect fit): only
    jax.grad of loss_one, not a gradient derived by hand for the squared error, matches."""
    a, b = (float(np.round(v, 3)) for v in (rng.uniform(0.5, 2.0), rng.uniform(0.0, 0.5)))
    return {"loss_one": f"def loss_one(w, xi, yi):\n    r = jnp.dot(xi, w) - yi\n"
                        f"    return {a} * r ** 2 + {b} * r ** 4\n"}


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)

    def draw(i: int) -> Call:
        rows, cols = ((3, 2), (2, 1))[int(rng.integers(0, 2))]  # the fixed calls' shapes
        return Call(f"random draw {i}", (rng.normal(size=cols).astype(np.float32),
                                         (3.0 * rng.normal(size=(rows, cols))).astype(np.float32),
                                         rng.normal(size=rows).astype(np.float32)), "random")

    return [
        Call("the lesson's w, x, y", (np.array([0.5, -0.25], np.float32), x,
                                      np.array([1.0, 2.0, 3.0], np.float32))),
        Call("a perfect fit (every gradient is zero)", (np.array([1.0, 0.0], np.float32), x,
                                                        x[:, 0].copy())),
        Call("small gradients (none is clipped)", (np.array([0.1], np.float32),
                                                   np.array([[0.1], [0.2]], np.float32),
                                                   np.array([0.0, 0.0], np.float32))),
        *(draw(i) for i in range(3)),
    ]
