"""Hidden checks for randomness-02.exercise.tree-to-vector: to_vector(a, b, c).

One vector of every leaf of build_tree(a, b, c), raveled, in jax.tree.leaves order. The grader
rebinds build_tree to a tree of its own, drawn at grading time: concatenating a, b and c in the
order of the lesson's tree gives the wrong order or misses a repeated leaf.
"""

import numpy as np

from course.checks import Call, FunctionExercise, traced

EXERCISE = FunctionExercise(
    "to_vector",
    params={"k": (1.0, 2.0, -1.0)},
    jit=True,
    jit_feedback="the leaves and their shapes are known while tracing; concatenation jits",
    rtol=1e-6,
    atol=1e-6,
    substitutes=("build_tree",),
    rules=(traced("ravel and concatenate are jax.numpy operations"),),
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
