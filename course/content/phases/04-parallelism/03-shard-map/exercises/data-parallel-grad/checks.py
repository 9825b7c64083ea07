"""Hidden checks for parallel-03.exercise.data-parallel-grad on 8 logical devices.

``loss`` is rebound at grading time to a loss drawn now (a squared or a Huber-like error of
x @ w + b with b drawn), so only jax.grad through it, not a derivative written by hand, gives
the reference's numbers. Tolerance: the mean of 8 shard means equals the batch mean up to
float32 reordering of n <= 64 terms (eps 1.2e-7 x n x |g|): rtol 2e-5, atol 1e-5. The method
is read from the trace (a shard_map holding a psum: pmean traces to one), the result's layout
(whole on all 8 devices) and the compiled program (an all-reduce, no all-gather: the batch is
never collected on one device)."""

import numpy as np

from course.checks import Call, FunctionExercise, collectives, per_device, sharded_as

EXERCISE = FunctionExercise(
    "data_parallel_grad",
    params={"scale": (1.0, 0.5, 2.0)},
    jit=False,
    rtol=2e-5,
    atol=1e-5,
    substitutes=("loss",),
    rules=(
        per_device("shard_map over 'data' with each device's jax.grad, then jax.lax.pmean"),
        sharded_as("out_specs=P(): the averaged gradient whole on every device", ()),
        collectives("pmean across the devices is one all-reduce; gathering the batch is not "
                    "data parallelism", require=("all-reduce",), forbid=("all-gather",)),
    ),
)

LOSSES = (
    "def loss(w, x, y):\n    return jnp.mean((x @ w + {b} - y) ** 2)\n",
    "def loss(w, x, y):\n    r = x @ w + {b} - y\n    return jnp.mean(jnp.sqrt(1.0 + r * r) - 1.0)\n",
)


def substitutes(params: dict, rng: np.random.Generator) -> dict[str, str]:
    kind = int(rng.integers(len(LOSSES)))
    return {"loss": LOSSES[kind].format(b=round(float(rng.normal()), 3))}


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    def draw(i: int) -> Call:
        # Fresh values in the fixed calls' shapes: each new shape compiles the shard_map again
        # on 8 devices, about two CPU seconds a grading for no behaviour of its own (issue 23).
        n, d = ((64, 3), (8, 2))[i]
        return Call(f"random draw {i}", (rng.normal(size=d).astype(np.float32),
                                         rng.normal(size=(n, d)).astype(np.float32),
                                         rng.normal(size=n).astype(np.float32)), "random")

    return [
        Call("the lesson's batch", (np.array([0.5, -1.0, 2.0], np.float32),
                                    np.linspace(-1, 1, 64 * 3, dtype=np.float32).reshape(64, 3),
                                    np.sin(np.arange(64, dtype=np.float32)))),
        Call("one example a device", (np.ones(2, np.float32),
                                      np.arange(16, dtype=np.float32).reshape(8, 2) / 8,
                                      np.zeros(8, np.float32))),
        *(draw(i) for i in range(2)),  # 2 shapes: each compiles a shard_map twice (8 devices)
    ]
