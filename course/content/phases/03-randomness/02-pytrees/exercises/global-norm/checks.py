"""Hidden checks for randomness-02.exercise.global-norm: global_norm(a, b, c).

The grader rebinds build_tree to a tree of its own, drawn at grading time (another nesting,
None and empty containers, an array that appears twice): a sum written for the lesson's tree
misses or double-counts leaves; only jax.tree.leaves of whatever build_tree returns is right.
"""

import numpy as np

from course.checks import Call, FunctionExercise, traced

EXERCISE = FunctionExercise(
    "global_norm",
    params={"p": (2, 1, 4)},
    jit=True,
    jit_feedback="jax.tree.leaves runs while tracing; the sum over leaves is array code",
    rtol=1e-5,
    atol=1e-6,
    substitutes=("build_tree",),
    rules=(traced("the norm is jax.numpy arithmetic over the tree's leaves"),),
)

TREES = (
    "{\"w\": [a, (b, None)], \"c\": c}",
    "[a, {\"x\": b, \"y\": (c, a)}, ()]",
    "((a,), {\"k\": [b, c, b]}, None)",
    "{\"z\": c, \"a\": {\"m\": a, \"n\": [None, b]}, \"e\": []}",
    "(c, [b, (a, [])], {\"q\": a})",
)
"""Trees the grader builds from the three arrays: other nestings, None and empty containers,
and arrays that appear twice, so only code that walks the tree (not one written for the
lesson's build_tree) gets every leaf."""


def substitutes(params: dict, rng: np.random.Generator) -> dict[str, str]:
    tree = TREES[int(rng.integers(len(TREES)))]
    return {"build_tree": f"def build_tree(a, b, c):\n    return {tree}\n"}


def _arrays(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    shapes = [tuple(int(n) for n in rng.integers(1, 4, size=int(rng.integers(0, 3))))
              for _ in range(3)]
    return tuple(rng.normal(size=s).astype(np.float32) for s in shapes)


EDGE = {
    "the lesson's arrays": (np.ones((2, 3), np.float32), np.arange(3, dtype=np.float32),
                             np.array(-2.0, np.float32)),
    "zeros and a scalar": (np.zeros((2, 2), np.float32), np.zeros(1, np.float32),
                           np.array(3.0, np.float32)),
}


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    return [*(Call(label, args) for label, args in EDGE.items()),
            *(Call(f"random draw {i}", _arrays(rng), "random") for i in range(3))]
