"""Fit a linear model with grad, jit and vmap: reference implementation (instructor reference
execution only).

Parameters are two arrays, ``w`` of shape (features,) and a scalar ``b``; a batch is ``x`` of
shape (examples, features) with targets ``y`` of shape (examples,). Every function is pure:
its outputs depend only on its arguments, which is what lets jax.grad, jax.jit and jax.vmap
transform it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def predict(w: jnp.ndarray, b: jnp.ndarray, x: jnp.ndarray) -> jnp.ndarray:
    """Predictions ``x @ w + b``: shape (examples,). Given (not a TODO)."""
    return x @ w + b


def loss(w: jnp.ndarray, b: jnp.ndarray, x: jnp.ndarray, y: jnp.ndarray) -> jnp.ndarray:
    """Mean squared error over the batch: a float32 scalar, so jax.grad can differentiate it."""
    return jnp.mean((predict(w, b, x) - y) ** 2)


def loss_grad(w: jnp.ndarray, b: jnp.ndarray, x: jnp.ndarray,
              y: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray]:
    """(d loss / d w, d loss / d b): one gradient per parameter, each shaped like it."""
    return jax.grad(loss, argnums=(0, 1))(w, b, x, y)


@jax.jit
def train_step(w: jnp.ndarray, b: jnp.ndarray, x: jnp.ndarray, y: jnp.ndarray,
               lr: float) -> tuple[jnp.ndarray, jnp.ndarray, jnp.ndarray]:
    """One step of gradient descent, compiled once: (new w, new b, loss before the step).

    The parameters come in and new ones go out; nothing is updated in place.
    """
    value, (dw, db) = jax.value_and_grad(loss, argnums=(0, 1))(w, b, x, y)
    return w - lr * dw, b - lr * db, value


def per_example_grads(w: jnp.ndarray, b: jnp.ndarray, x: jnp.ndarray,
                      y: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray]:
    """Each example's own gradient: shapes (examples, features) and (examples,).

    vmap maps ``loss_grad`` of a one-example batch over the rows of ``x`` and ``y``; the
    parameters are shared (``in_axes=None``). Their mean is the batch gradient.
    """

    def one(xi: jnp.ndarray, yi: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray]:
        return loss_grad(w, b, xi[None, :], yi[None])

    return jax.vmap(one, in_axes=(0, 0))(x, y)
