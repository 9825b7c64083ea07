"""Hidden checks for randomness-03.exercise.adam-steps: adam_steps(w1, b1, w2, b2, x, y).

Three steps of optax.adam on the lesson's MLP tree, compared with the reference after the last
step. The grader rebinds `loss` to one drawn at grading time, so gradients derived by hand for
the mean squared error give other parameters; SGD, or Adam restarted each step (a new state),
give other numbers too: Adam's moments and step count carry over from step to step.
"""

import numpy as np

from course.checks import Call, FunctionExercise, traced

EXERCISE = FunctionExercise(
    "adam_steps",
    params={"lr": (0.05, 0.01, 0.1)},
    jit=True,
    jit_feedback="optax's init, update and apply_updates are array code on pytrees: they jit",
    rtol=2e-4,
    atol=2e-5,
    substitutes=("loss",),
    rules=(traced("value_and_grad and optax trace like any JAX function"),),
)
"""Tolerance: three Adam steps divide by sqrt(v) + eps; float32 rounding of a gradient near
zero is amplified, so compare at 2e-4 relative, far below a one-step difference (lr)."""

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


def _edges() -> dict[str, tuple[np.ndarray, ...]]:
    fixed = np.random.default_rng(3)
    return {"the lesson's shapes (1 -> 16 -> 1, 64 examples)": _problem(fixed, 64, 1, 16),
            "one example, three features": _problem(fixed, 1, 3, 4)}


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    """Random values in the lesson's shapes: eager optax runs op by op, and every new shape
    compiles each operation again, so two shapes keep the run far inside the sandbox's limits."""
    return [*(Call(label, args) for label, args in _edges().items()),
            *(Call(f"random draw {i}", _problem(rng, 64, 1, 16), "random")
              for i in range(2))]
