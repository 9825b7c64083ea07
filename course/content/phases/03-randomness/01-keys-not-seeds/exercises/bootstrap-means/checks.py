"""Hidden checks for randomness-01.exercise.bootstrap-means: bootstrap_means(seed, x, b).

The reference draws resample j's indices from split(key(seed), b)[j]. A reused key makes every
resample the same (all b means equal: the bug the lesson shows); a Python loop over the keys
grows the trace with b (a static argument: the calls use several b).

The drawn calls reuse the fixed calls' shapes (10 values, 8 resamples or 7 values, 3
resamples) with fresh seeds and values: each new (length, b) is a compilation, plain, under
jit and traced, and five of them made the reference alone cost over 10 CPU seconds a grading
(bench/README.md, "burst"); two shapes show a trace growing with b just as well.
"""

import numpy as np

from course.checks import Call, FunctionExercise, Values, check, vectorised

EXERCISE = FunctionExercise(
    "bootstrap_means",
    params={"m": (10, 20, 5)},
    jit=True,
    static_argnums=(2,),
    jit_feedback="b and m are Python ints, so every shape is known when tracing: it jits",
    rtol=1e-5,
    atol=1e-6,
    rules=(vectorised("one key per resample from split, and jax.vmap draws every resample's "
                      "indices in one program"),),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    def draw(i: int) -> Call:
        size, b = ((10, 8), (7, 3))[int(rng.integers(0, 2))]
        return Call(f"random draw {i}", (int(rng.integers(0, 2**31 - 1)),
                                         rng.normal(size=size).astype(np.float32), b),
                    "random")

    return [
        Call("the lesson's 0..9, 8 resamples", (0, np.arange(10, dtype=np.float32), 8)),
        Call("three resamples", (3, np.linspace(-1.0, 1.0, 7, dtype=np.float32), 3)),
        *(draw(i) for i in range(3)),
    ]


@check("the resamples differ from one another (one key each)", points=1)
def resamples_differ(v: Values) -> None:
    results = v.captured.calls.results if v.captured.calls else ()
    for call, result in zip(v.inputs, results, strict=False):
        outputs = result.plain.outputs or ()
        if len(outputs) != 1 or outputs[0].kind != "array":
            continue
        means = np.asarray(outputs[0].value)
        v.expect_true(means.size > 1 and np.unique(means).size > 1,
                      f"on {call.label} every resample has the same mean: the same key drew "
                      "every resample's indices; split it, one key per resample")
