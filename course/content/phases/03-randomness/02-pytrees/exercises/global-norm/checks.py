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


EDGE = {
    "the lesson's arrays": (np.ones((2, 3), np.float32), np.arange(3, dtype=np.float32),
                             np.array(-2.0, np.float32)),
    "zeros and a scalar": (np.zeros((2, 2), np.float32), np.zeros(1, np.float32),
                           np.array(3.0, np.float32)),
}


def _arrays(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """Fresh N(0, 1) values in the shapes of one of the EDGE calls: each new shape is compiled
    plain, under jit and traced in the learner's run, and the drawn tree, not the shapes, is
    what a sum written for the lesson's tree gets wrong."""
    edge = list(EDGE.values())[int(rng.integers(len(EDGE)))]
    return tuple(rng.normal(size=a.shape).astype(np.float32) for a in edge)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    return [*(Call(label, args) for label, args in EDGE.items()),
            *(Call(f"random draw {i}", _arrays(rng), "random") for i in range(3))]
