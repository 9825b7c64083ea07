"""Hidden checks for randomness-04.exercise.epoch-order: epoch_order(seed, epoch, x).

The rows of x in the order of permutation(fold_in(key(seed), epoch), n), cut into full batches
of b. The reference's numbers: the same order every epoch (the epoch ignored), a key from
seed + epoch, or NumPy's shuffle give other batches.
"""

import numpy as np

from course.checks import Call, FunctionExercise, traced

EXERCISE = FunctionExercise(
    "epoch_order",
    params={"b": (32, 16, 8)},
    jit=True,
    jit_feedback="the permutation's length comes from x.shape and the epoch is a traced "
                 "number for fold_in: an epoch's order is computed in the compiled program",
    rules=(traced("permutation and fold_in are JAX operations; NumPy's shuffle is not traced"),),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    b = params["b"]

    def data(n: int, d: int, generator: np.random.Generator) -> np.ndarray:
        return generator.normal(size=(n, d)).astype(np.float32)

    fixed = np.random.default_rng(2)
    return [
        Call("the lesson's 256 points, epoch 0", (0, 0, data(256, 2, fixed))),
        Call("the same points, epoch 1", (0, 1, data(256, 2, np.random.default_rng(2)))),
        Call("exactly one batch", (4, 3, data(b, 3, fixed))),
        Call("a partial last batch", (7, 2, data(3 * b + 5, 2, fixed))),
        # Drawn in the fixed calls' shapes, with fresh seeds, epochs and values: each new
        # shape is a compilation (plain, under jit and traced), which made a grading cost
        # several CPU seconds more than the behaviour it checks (issue 23).
        *(Call(f"random draw {i}", (int(rng.integers(0, 2**31 - 1)), int(rng.integers(0, 100)),
                                    data(*((256, 2), (b, 3), (3 * b + 5, 2))[i], rng)),
               "random") for i in range(3)),
    ]
