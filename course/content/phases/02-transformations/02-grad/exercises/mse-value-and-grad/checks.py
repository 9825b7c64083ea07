"""Hidden checks for transforms-02.exercise.mse-value-and-grad: loss_and_grad(w, x, y).

The drawn calls reuse the fixed calls' shapes (3 examples of 2 features, or 1 of 1) with fresh
values: each new shape is compiled plain, under jit and traced in the learner's run.
"""

import numpy as np

from course.checks import Call, FunctionExercise, one_pass

EXERCISE = FunctionExercise(
    "loss_and_grad",
    jit=True,
    jit_feedback="value_and_grad returns a new function of arrays; it composes with jax.jit",
    rtol=1e-5,
    atol=1e-5,
    substitutes=("scaled_mse",),
    rules=(one_pass("jax.value_and_grad computes the loss and its gradient in one pass, as a "
                    "training step needs both; the loss and jax.grad separately run the "
                    "forward pass twice"),)
)


def substitutes(params: dict, rng: np.random.Generator) -> dict[str, str]:
    """A scaled_mse the learner never saw (still zero, with a zero gradient, at a perfect fit):
    only a transformation of scaled_mse, not its gradient derived by hand, gives its
    gradient. The scale is drawn here too, so it plays the part of a per-learner variant."""
    c, a, b = (float(np.round(v, 3)) for v in (rng.uniform(0.25, 2.0), rng.uniform(0.5, 2.0),
                                                rng.uniform(0.1, 0.5)))
    return {"scaled_mse": "def scaled_mse(w, x, y):\n"
                          "    r = x @ w - y\n"
                          f"    return {c} * jnp.mean({a} * r ** 2 + {b} * r ** 4)\n"}


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    y = np.array([1.0, 2.0, 3.0], np.float32)

    def draw(i: int) -> Call:
        rows, cols = ((3, 2), (1, 1))[int(rng.integers(0, 2))]  # the fixed calls' shapes
        return Call(f"random draw {i}", (rng.normal(size=cols).astype(np.float32),
                                         rng.normal(size=(rows, cols)).astype(np.float32),
                                         rng.normal(size=rows).astype(np.float32)), "random")

    return [
        Call("the lesson's w, x, y", (np.array([0.5, -0.25], np.float32), x, y)),
        Call("a perfect fit (zero loss, zero gradient)", (np.array([1.0, 0.0], np.float32),
                                                          x[:, :1].repeat(2, 1), x[:, 0])),
        Call("one example", (np.array([2.0], np.float32), np.array([[3.0]], np.float32),
                             np.array([1.0], np.float32))),
        *(draw(i) for i in range(3)),
    ]
