"""Hidden checks for transforms-01.exercise.bucketed-lengths: bucketed_mean(v) on hidden lengths.

The drawn calls reuse the fixed calls' lengths with fresh values: each new length is compiled
plain, under jit and traced in the learner's run. The fixed length 3 * bucket - 1 reaches a
third bucket, as the random lengths used to: padding that stops at two buckets fails it.
"""

import numpy as np

from course.checks import Call, FunctionExercise, compiles_per_signature, traced

EXERCISE = FunctionExercise(
    "bucketed_mean",
    params={"bucket": (8, 4, 16)},
    rtol=1e-5,
    rules=(traced("padding and the masked mean are jax.numpy operations that jit compiles; "
                  "NumPy on the host is never traced, so there is no bucket to share"),
           compiles_per_signature(
               "pad every input to its bucket before calling masked_mean: the hidden calls "
               "must compile it once per bucket, never once per length", function="masked_mean",
               key=lambda call, params: -(-len(call.args[0]) // params["bucket"]),
               title="compiles once per bucket, not once per length")),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    bucket = params["bucket"]
    lengths = (1, bucket, bucket + 1, 3, 3 * bucket - 1)  # the fixed calls' lengths
    return [
        Call("one element", (np.array([3.0], np.float32),)),
        Call("exactly one bucket", (np.arange(bucket, dtype=np.float32),)),
        Call("one more than a bucket", (np.arange(bucket + 1, dtype=np.float32),)),
        Call("negative values", (np.array([-4.0, -2.0, 1.0], np.float32),)),
        Call("one short of three buckets", (np.linspace(-1.0, 2.0, 3 * bucket - 1,
                                                        dtype=np.float32),)),
        *(Call(f"random draw {i}", (rng.normal(size=lengths[int(rng.integers(0, 5))])
                                   .astype(np.float32),), "random") for i in range(3)),
    ]
