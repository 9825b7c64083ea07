"""Hidden checks for parallel-01.exercise.spread: spread(x) on 8 logical devices.

The values are compared with the reference (they must not change: exact, device_put copies);
the layout is read from the returned array's sharding, so returning x, or putting it whole on
one device, or splitting the other dimension, gets the numbers right and the layout wrong."""

import numpy as np

from course.checks import Call, FunctionExercise, sharded_as

EXERCISE = FunctionExercise(
    "spread",
    params={"dim": (0, 1)},
    jit=False,
    rtol=0.0,
    atol=0.0,
    rules=(sharded_as("a NamedSharding on the 1-D mesh of all 8 devices, with 'data' at the "
                      "dimension the prompt names and None before it",
                      lambda params: (None,) * params["dim"] + ("data",), points=2),),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    dim = params["dim"]

    def shaped(split: int, other: int) -> tuple[int, int]:
        return (split, other) if dim == 0 else (other, split)

    def draw(i: int) -> Call:
        # The float32 fixed calls' shapes, fresh values: each new shape is compiled plain, under
        # jit and traced in the learner's run; the fixed calls already vary the split's length.
        shape = ((8, 4), (8, 2))[int(rng.integers(2))] if dim == 0 else \
            ((2, 16), (2, 8))[int(rng.integers(2))]
        return Call(f"random draw {i}", (rng.normal(size=shape).astype(np.float32),), "random")

    return [
        Call("the lesson's table", (np.arange(32, dtype=np.float32).reshape(8, 4)
                                    if dim == 0 else np.ones((2, 16), np.float32),)),
        Call("exactly 8 along the split", (np.arange(16, dtype=np.float32).reshape(
            shaped(8, 2)),)),
        Call("integers", (np.arange(64, dtype=np.int32).reshape(shaped(16, 4)),)),
        *(draw(i) for i in range(3)),
    ]
