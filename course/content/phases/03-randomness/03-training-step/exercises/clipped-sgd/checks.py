"""Hidden checks for randomness-03.exercise.clipped-sgd: clipped_sgd_step(w1, b1, w2, b2, x, y).

One step of optax.chain(clip_by_global_norm(c), sgd(0.1)): the gradient tree is scaled as a
whole when its global norm exceeds c. Large inputs make clipping happen; small ones do not. The
grader's own `loss` (drawn at grading time) rules out gradients derived by hand; clipping each
leaf on its own (clip_by_block_rms, or optax.clip) gives other numbers.
"""

import numpy as np

from course.checks import Call, FunctionExercise, traced

EXERCISE = FunctionExercise(
    "clipped_sgd_step",
    params={"c": (1.0, 0.5, 2.0)},
    jit=True,
    jit_feedback="clipping is a where on the global norm: it traces and jits",
    rtol=1e-5,
    atol=1e-6,
    substitutes=("loss",),
    rules=(traced("the clipped update is JAX arithmetic on the gradient tree"),),
)

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
    compiles each operation again, so two shapes keep the run far inside the sandbox's limits
    (the large targets too: a third shape cost each grading about a third more, issue 23)."""
    big = _problem(np.random.default_rng(5), 64, 1, 16)
    big = (*big[:5], 20.0 * big[5])  # far-off targets: a large gradient, clipped
    return [*(Call(label, args) for label, args in _edges().items()),
            Call("large targets (the clip acts)", big),
            *(Call(f"random draw {i}", _problem(rng, 64, 1, 16), "random")
              for i in range(2))]
