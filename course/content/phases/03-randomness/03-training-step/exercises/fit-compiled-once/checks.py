"""Hidden checks for randomness-03.exercise.fit-compiled-once: fit(w1, b1, w2, b2, x, y, steps).

`steps` steps of the learner's own jitted `fit_step` (optax.sgd), returning the final
parameters and every step's loss. Compared with the reference on the grader's `loss` (drawn at
grading time); `fit_step` must be a jax.jit function compiled once per distinct problem shape:
a jit built inside the loop, a jitted lambda per call, or no jit at all fail it.
"""

import numpy as np

from course.checks import Call, FunctionExercise, compiles_per_signature

EXERCISE = FunctionExercise(
    "fit",
    params={"lr": (0.1, 0.05, 0.2)},
    rtol=1e-4,
    atol=1e-5,
    substitutes=("loss",),
    rules=(compiles_per_signature(
        "define fit_step once at module level under jax.jit, with the parameters, the "
        "optimizer state and the batch as arguments, and call it in the loop: it compiles once "
        "per batch shape, not once per step or per call", function="fit_step",
        key=lambda call, params: tuple(np.shape(a) for a in call.args[:6]),
        title="is jitted once per problem shape, not once per step"),),
)
"""Tolerance: several SGD steps compound float32 rounding; 1e-4 relative is far below what one
step with another learning rate or a missed step changes."""

ACTIVATIONS = ("jnp.tanh", "jnp.sin", "jax.nn.softplus")


def substitutes(params: dict, rng: np.random.Generator) -> dict[str, str]:
    """A loss the learner never saw, drawn now (another activation, a weighted squared plus
    absolute error): only jax.grad of `loss`, not a gradient derived by hand for the lesson's
    mean squared error, gives its gradients."""
    act = ACTIVATIONS[int(rng.integers(len(ACTIVATIONS)))]
    a, c = (float(np.round(v, 3)) for v in (rng.uniform(0.5, 2.0), rng.uniform(0.05, 0.5)))
    return {"loss": "def loss(params, batch):\n"
                    "    x, y = batch\n"
                    "    for layer in params[:-1]:\n"
                    f"        x = {act}(x @ layer['w'] + layer['b'])\n"
                    "    r = x @ params[-1]['w'] + params[-1]['b'] - y\n"
                    f"    return jnp.mean({a} * r ** 2 + {c} * jnp.abs(r))\n"}


def _problem(rng: np.random.Generator, examples: int, features: int,
             hidden: int) -> tuple[np.ndarray, ...]:
    """(w1, b1, w2, b2, x, y): a one-hidden-layer MLP and a batch of regression data."""
    return (rng.normal(size=(features, hidden)).astype(np.float32) / np.sqrt(features),
            (0.1 * rng.normal(size=hidden)).astype(np.float32),
            rng.normal(size=(hidden, 1)).astype(np.float32) / np.sqrt(hidden),
            (0.1 * rng.normal(size=1)).astype(np.float32),
            rng.uniform(-2, 2, size=(examples, features)).astype(np.float32),
            rng.normal(size=(examples, 1)).astype(np.float32))


SHAPES = ((64, 1, 16), (1, 3, 4))
"""(examples, features, hidden) of the fixed problems. The drawn problems reuse them with fresh
values: each new shape is compiled plain, under jit and traced in the learner's run, and a
fit_step compiled once per shape is told from one compiled per call by the repeated shapes."""


def _edges() -> dict[str, tuple[np.ndarray, ...]]:
    fixed = np.random.default_rng(3)
    return {"the lesson's shapes (1 -> 16 -> 1, 64 examples)": _problem(fixed, *SHAPES[0]),
            "one example, three features": _problem(fixed, *SHAPES[1])}


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    edges = _edges()
    return [*(Call(label, (*args, 5)) for label, args in edges.items()),
            Call("the lesson's shapes again, more steps",
                 (*next(iter(edges.values())), 12)),
            *(Call(f"random draw {i}", (*_problem(rng, *SHAPES[int(rng.integers(len(SHAPES)))]),
                                        int(rng.integers(2, 8))), "random")
              for i in range(2))]
