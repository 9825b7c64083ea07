# max-score: 5
# why: no jax.grad, no jax.jit, gradients derived by hand for a linear model, an unused jax.vmap and a Python loop: wrong for the model drawn at grading time

import jax
import jax.numpy as jnp


def predict(w, b, x):
    return x @ w + b


def loss(w, b, x, y):
    return jnp.mean((predict(w, b, x) - y) ** 2)


def loss_grad(w, b, x, y):
    r = predict(w, b, x) - y
    return 2.0 * x.T @ r / y.shape[0], 2.0 * jnp.mean(r)


def train_step(w, b, x, y, lr):
    dw, db = loss_grad(w, b, x, y)
    return w - lr * dw, b - lr * db, loss(w, b, x, y)


def per_example_grads(w, b, x, y):
    jax.vmap(jnp.sin)(y)
    rows = [loss_grad(w, b, x[i:i + 1], y[i:i + 1]) for i in range(x.shape[0])]
    return jnp.stack([r[0] for r in rows]), jnp.stack([r[1] for r in rows])
