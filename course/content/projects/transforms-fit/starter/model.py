"""Fit a linear model with grad, jit and vmap: your implementation (the learner's workspace).

Parameters are two arrays, ``w`` of shape (features,) and a scalar ``b``; a batch is ``x`` of
shape (examples, features) with targets ``y`` of shape (examples,). Every function is pure:
its outputs depend only on its arguments, which is what lets jax.grad, jax.jit and jax.vmap
transform it.

Fill in the four TODOs, then run, from the folder that holds projects/:
    python projects/transforms-fit/run.py --implementation starter --stage 1
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def predict(w: jnp.ndarray, b: jnp.ndarray, x: jnp.ndarray) -> jnp.ndarray:
    """Predictions ``x @ w + b``: shape (examples,). Given (not a TODO).

    The grader replaces it with a model of its own: call predict, and differentiate with jax.grad
    instead of deriving gradients by hand."""
    return x @ w + b


def loss(w: jnp.ndarray, b: jnp.ndarray, x: jnp.ndarray, y: jnp.ndarray) -> jnp.ndarray:
    """Mean squared error over the batch: a float32 scalar, so jax.grad can differentiate it."""
    raise NotImplementedError(
        "TODO 1 (loss in starter/model.py): return the mean squared error "
        "jnp.mean((predict(w, b, x) - y) ** 2), a scalar: jax.grad needs a scalar output."
    )


def loss_grad(w: jnp.ndarray, b: jnp.ndarray, x: jnp.ndarray,
              y: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray]:
    """(d loss / d w, d loss / d b): one gradient per parameter, each shaped like it."""
    raise NotImplementedError(
        "TODO 2 (loss_grad in starter/model.py): differentiate `loss` with respect to its first "
        "two arguments: jax.grad(loss, argnums=(0, 1))(w, b, x, y) returns (dw, db)."
    )


def train_step(w: jnp.ndarray, b: jnp.ndarray, x: jnp.ndarray, y: jnp.ndarray,
               lr: float) -> tuple[jnp.ndarray, jnp.ndarray, jnp.ndarray]:
    """One step of gradient descent, compiled once: (new w, new b, loss before the step)."""
    raise NotImplementedError(
        "TODO 3 (train_step in starter/model.py): decorate the function with @jax.jit; take "
        "value, (dw, db) = jax.value_and_grad(loss, argnums=(0, 1))(w, b, x, y) and return "
        "(w - lr * dw, b - lr * db, value): new parameters, nothing updated in place."
    )


def per_example_grads(w: jnp.ndarray, b: jnp.ndarray, x: jnp.ndarray,
                      y: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray]:
    """Each example's own gradient: shapes (examples, features) and (examples,)."""
    raise NotImplementedError(
        "TODO 4 (per_example_grads in starter/model.py): write one(xi, yi) returning "
        "loss_grad(w, b, xi[None, :], yi[None]) (a batch of one) and map it over the rows with "
        "jax.vmap(one)(x, y); no Python loop. The mean of the rows is the batch gradient."
    )
