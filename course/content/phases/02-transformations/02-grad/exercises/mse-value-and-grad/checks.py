"""Hidden checks for transforms-02.exercise.mse-value-and-grad: loss_and_grad(w, x, y)."""

import numpy as np

from course.checks import Call, FunctionExercise, calls_function

EXERCISE = FunctionExercise(
    "loss_and_grad",
    params={"c": (1.0, 0.5, 2.0)},
    jit=True,
    jit_feedback="value_and_grad returns a new function of arrays; it composes with jax.jit",
    rtol=1e-5,
    atol=1e-5,
    rules=(calls_function("value_and_grad", "it computes the loss and its gradient in one "
                          "pass, as a training step needs both"),),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    y = np.array([1.0, 2.0, 3.0], np.float32)

    def draw(i: int) -> Call:
        rows, cols = int(rng.integers(2, 9)), int(rng.integers(1, 5))
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
