"""Hidden checks for randomness-02.exercise.vector-to-tree: from_vector(v, a, b, c).

The inverse of to_vector: cut v into pieces with the sizes and shapes of build_tree(a, b, c)'s
leaves, in leaf order, and return the rebuilt tree's leaves times k. The grader rebinds
build_tree to a tree of its own, drawn at grading time, and v is a fresh vector of the right
length, so only code that follows the tree's own leaves (flatten, unflatten) cuts it right.
"""

import numpy as np

from course.checks import Call, FunctionExercise, traced

EXERCISE = FunctionExercise(
    "from_vector",
    params={"k": (1.0, 0.5, 3.0)},
    jit=True,
    jit_feedback="the sizes of the pieces come from the leaves' shapes, known while tracing",
    rtol=1e-6,
    atol=1e-6,
    substitutes=("build_tree",),
    rules=(traced("slicing and reshaping v are jax.numpy operations"),),
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


def _with_vector(rng: np.random.Generator, arrays: tuple[np.ndarray, ...]) -> tuple:
    """A vector long enough for any of the trees (a leaf appears at most twice)."""
    length = 2 * sum(a.size for a in arrays)
    return (rng.normal(size=length).astype(np.float32), *arrays)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    return [*(Call(label, _with_vector(rng, args)) for label, args in EDGE.items()),
            *(Call(f"random draw {i}", _with_vector(rng, _arrays(rng)), "random")
              for i in range(3))]
