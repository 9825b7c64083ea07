"""Hidden checks for transforms-02.exercise.pytree-sgd-step: sgd_step(w, b, x, y).

The drawn calls reuse the fixed calls' shapes (3 examples of 2 features, or 1 of 1) with fresh
values: each new shape is compiled plain, under jit and traced in the learner's run.
"""

import numpy as np

from course.checks import Call, FunctionExercise

EXERCISE = FunctionExercise(
    "sgd_step",
    params={"lr": (0.01, 0.02, 0.005)},
    jit=True,
    jit_feedback="grad and tree.map trace like any array function, so a training step jits",
    rtol=1e-5,
    atol=1e-6,
    substitutes=("loss_fn",),
)


def substitutes(params: dict, rng: np.random.Generator) -> dict[str, str]:
    """A loss_fn the learner never saw: only jax.grad of loss_fn, not a gradient derived by
    hand for the mean squared error, gives its gradient."""
    a, b = (float(np.round(v, 3)) for v in (rng.uniform(0.5, 2.0), rng.uniform(0.0, 0.5)))
    return {"loss_fn": "def loss_fn(params, x, y):\n"
                       "    r = x @ params['w'] + params['b'] - y\n"
                       f"    return jnp.mean({a} * r ** 2 + {b} * r ** 4)\n"}


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    y = np.array([1.0, 2.0, 3.0], np.float32)

    def draw(i: int) -> Call:
        rows, cols = ((3, 2), (1, 1))[int(rng.integers(0, 2))]  # the fixed calls' shapes
        return Call(f"random draw {i}", (rng.normal(size=cols).astype(np.float32),
                                         np.array(rng.normal(), np.float32),
                                         rng.normal(size=(rows, cols)).astype(np.float32),
                                         rng.normal(size=rows).astype(np.float32)), "random")

    return [
        Call("the lesson's params, x, y", (np.array([0.5, -0.25], np.float32),
                                           np.array(0.1, np.float32), x, y)),
        Call("zero parameters", (np.zeros(2, np.float32), np.array(0.0, np.float32), x, y)),
        Call("one example", (np.array([2.0], np.float32), np.array(-1.0, np.float32),
                             np.array([[3.0]], np.float32), np.array([1.0], np.float32))),
        *(draw(i) for i in range(3)),
    ]
