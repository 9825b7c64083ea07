"""Hidden checks for parallel-02.exercise.partitioned-matmul on 8 logical devices.

The numbers must equal one device's x @ w within float32 rounding of a sum split in 8 and
added in another order: k terms of size |x||w| each, eps 1.2e-7, so rtol 1e-5 and atol 1e-5
for the drawn inputs (k <= 32, entries ~N(0, 1)). The method is read from what the compiler
did: the result replicated on all 8 devices (its sharding), and the compiled program holding
the collective the variant's layout needs (a split contraction adds partial products: an
all-reduce; split rows are gathered: an all-gather) and not the other."""

import numpy as np

from course.checks import Call, FunctionExercise, collectives, sharded_as

NEEDS = {"contracted": ("all-reduce",), "rows": ("all-gather",)}
OTHER = {"contracted": ("all-gather",), "rows": ("all-reduce",)}

EXERCISE = FunctionExercise(
    "partitioned_matmul",
    params={"split": ("contracted", "rows")},
    jit=False,
    rtol=1e-5,
    atol=1e-5,
    rules=(
        sharded_as("out_shardings=NamedSharding(mesh, P()) leaves the whole product on every "
                   "device", ()),
        collectives("in_shardings split the dimension the prompt names; the partitioner then "
                    "inserts one all-reduce (a split contraction) or one all-gather (split "
                    "rows), and nothing else", require=lambda p: NEEDS[p["split"]],
                    forbid=lambda p: OTHER[p["split"]], points=2),
    ),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    def draw(i: int) -> Call:
        # The fixed calls' (m, k, n), fresh values: each new shape is compiled plain, under jit
        # and traced in the learner's run, and both split the contraction and the rows by 8.
        m, k, n = ((16, 32, 8), (8, 8, 1))[int(rng.integers(2))]
        return Call(f"random draw {i}", (rng.normal(size=(m, k)).astype(np.float32),
                                         rng.normal(size=(k, n)).astype(np.float32)), "random")

    return [
        Call("the lesson's x and w", (np.arange(16 * 32, dtype=np.float32).reshape(16, 32)
                                      / 100.0,
                                      np.linspace(-1, 1, 32 * 8, dtype=np.float32)
                                      .reshape(32, 8))),
        Call("one column out", (np.ones((8, 8), np.float32), np.ones((8, 1), np.float32))),
        *(draw(i) for i in range(3)),
    ]
