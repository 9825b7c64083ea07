# max-score: 11
# why: correct gradients, but train_step is not compiled with jax.jit (stage 3)

import jax
import jax.numpy as jnp


def predict(w, b, x):
    return x @ w + b


def loss(w, b, x, y):
    return jnp.mean((predict(w, b, x) - y) ** 2)


def loss_grad(w, b, x, y):
    return jax.grad(loss, argnums=(0, 1))(w, b, x, y)


def train_step(w, b, x, y, lr):
    value, (dw, db) = jax.value_and_grad(loss, argnums=(0, 1))(w, b, x, y)
    return w - lr * dw, b - lr * db, value


def per_example_grads(w, b, x, y):
    return jax.vmap(lambda xi, yi: loss_grad(w, b, xi[None, :], yi[None]))(x, y)
