# max-score: 11
# why: per-example gradients from a Python loop (an unused jax.vmap beside it), where vmap is taught (stage 4)

import jax
import jax.numpy as jnp


def predict(w, b, x):
    return x @ w + b


def loss(w, b, x, y):
    return jnp.mean((predict(w, b, x) - y) ** 2)


def loss_grad(w, b, x, y):
    return jax.grad(loss, argnums=(0, 1))(w, b, x, y)


@jax.jit
def train_step(w, b, x, y, lr):
    value, (dw, db) = jax.value_and_grad(loss, argnums=(0, 1))(w, b, x, y)
    return w - lr * dw, b - lr * db, value


def per_example_grads(w, b, x, y):
    jax.vmap(jnp.sin)(y)
    rows = [loss_grad(w, b, x[i:i + 1], y[i:i + 1]) for i in range(x.shape[0])]
    return jnp.stack([r[0] for r in rows]), jnp.stack([r[1] for r in rows])
