# max-score: 8
# why: the loss and jax.grad in two passes instead of value_and_grad's one: the forward pass is computed twice
def scaled_mse(w, x, y):
    return 0.5 * jnp.mean((x @ w - y) ** 2)


def loss_and_grad(w, x, y):
    return scaled_mse(w, x, y), jax.grad(scaled_mse)(w, x, y)
