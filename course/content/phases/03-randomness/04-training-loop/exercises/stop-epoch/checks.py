"""Hidden checks for randomness-04.exercise.stop-epoch: stop_epoch(val_losses).

The epoch at which training with patience p stops (the first epoch where p epochs in a row have
not improved the best loss by 1e-4), or the last epoch. It must stay in the compiled program: a
lax.scan (or while) whose trace does not grow with the number of epochs; a Python loop with
float() does not jit and unrolls.
"""

import numpy as np

from course.checks import Call, FunctionExercise, loops

EXERCISE = FunctionExercise(
    "stop_epoch",
    params={"p": (3, 2, 4)},
    jit=True,
    jit_feedback="early stopping decided with jnp.where inside a lax.scan needs no Python "
                 "value, so it runs under jit",
    check_dtype=False,
    rules=(loops("a lax.scan over the epochs carries the best loss and the epochs waited; "
                 "the loop stays one operation whatever the number of epochs"),),
)


LONG = 40
"""Epochs of the long fixed curve and of the drawn ones: long enough to level off and stop."""


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    p = params["p"]

    def curve(n: int) -> np.ndarray:
        noisy = np.exp(-np.arange(n) / rng.uniform(2, 10)) + rng.normal(scale=0.05, size=n)
        return noisy.astype(np.float32)

    return [
        Call("the lesson's curve", (np.array([0.5, 0.4, 0.41, 0.42, 0.39, 0.45, 0.46, 0.47],
                                             np.float32),)),
        Call("always improving", (np.linspace(1.0, 0.1, 10).astype(np.float32),)),
        Call("never improving after epoch 0", (np.full(p + 3, 1.0, np.float32),)),
        Call("an improvement smaller than 1e-4", (np.array([1.0] + [1.0 - 5e-5 * i
                                                                    for i in range(1, p + 3)],
                                                           np.float32),)),
        Call("a long run that overfits after epoch 20",
             ((0.2 + ((np.arange(LONG) - 20) / 20) ** 2).astype(np.float32),)),
        # Drawn curves in the long fixed call's length, fresh values: each new length is
        # compiled plain, under jit and traced in the learner's run, and a noisy curve of 10
        # epochs or fewer almost never stops before its last (nor would code that never stops).
        *(Call(f"random draw {i}", (curve(LONG),), "random") for i in range(3)),
    ]
