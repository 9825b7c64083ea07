"""Hidden checks for parallel-04.exercise.model-parallel-step on a (4, 2) mesh of 8 devices.

``loss`` is rebound at grading time to a two-layer loss drawn now (tanh or sin hidden units, a
squared or a log-cosh error), so only jax.grad through it gives the reference's step. The new
parameters and the loss are compared with one device's step: float32 sums split over 4 and 2
devices and added in another order (n <= 32 examples, h <= 16 hidden units, eps 1.2e-7 each):
rtol 2e-5, atol 1e-5. The method is read from the run: w1's columns and w2's rows split along
'model' on all 8 devices, and an all-reduce in the compiled step."""

import numpy as np

from course.checks import Call, FunctionExercise, collectives, sharded_as

EXERCISE = FunctionExercise(
    "model_parallel_step",
    params={"lr": (0.1, 0.05, 0.2)},
    jit=False,
    rtol=2e-5,
    atol=1e-5,
    substitutes=("loss",),
    rules=(
        sharded_as("w1's hidden units (its columns) split along 'model', P(None, 'model')",
                   (None, "model"), output=0),
        sharded_as("w2's hidden units (its rows) split along 'model', P('model', None)",
                   ("model", None), output=1),
        collectives("with the batch split along 'data' and the hidden units along 'model', the "
                    "step adds partial results across devices: all-reduces",
                    require=("all-reduce",)),
    ),
)

LOSSES = (
    "def loss(params, x, y):\n    h = jnp.{act}(x @ params['w1'])\n"
    "    return jnp.mean((h @ params['w2'] - y) ** 2)\n",
    "def loss(params, x, y):\n    h = jnp.{act}(x @ params['w1'])\n"
    "    return jnp.mean(jnp.log(jnp.cosh(h @ params['w2'] - y)))\n",
)


def substitutes(params: dict, rng: np.random.Generator) -> dict[str, str]:
    act = ("tanh", "sin")[int(rng.integers(2))]
    return {"loss": LOSSES[int(rng.integers(len(LOSSES)))].format(act=act)}


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    def draw(i: int) -> Call:
        # Fresh values in the fixed calls' shapes: each new shape compiles the step again on
        # the mesh, about a CPU second a grading for no behaviour of its own (issue 23).
        n, d, h = ((4, 2, 2), (8, 3, 4))[i % 2]
        return Call(f"random draw {i}", (
            (rng.normal(size=(d, h)) / 2).astype(np.float32),
            (rng.normal(size=(h, 1)) / 4).astype(np.float32),
            rng.normal(size=(n, d)).astype(np.float32),
            rng.normal(size=(n, 1)).astype(np.float32)), "random")

    return [
        Call("the smallest mesh-sized step", (np.full((2, 2), 0.5, np.float32),
                                              np.full((2, 1), 0.25, np.float32),
                                              np.arange(8, dtype=np.float32).reshape(4, 2) / 8,
                                              np.ones((4, 1), np.float32))),
        Call("zero targets", (np.eye(3, 4, dtype=np.float32), np.ones((4, 1), np.float32),
                              np.linspace(-1, 1, 24, dtype=np.float32).reshape(8, 3),
                              np.zeros((8, 1), np.float32))),
        *(draw(i) for i in range(3)),
    ]
