# Experiment — Per-example gradients of a pytree: vmap maps every leaf of a pytree argument or
# result. Per-example gradients of a dict of parameters are a dict of the same keys, each leaf
# with a new leading axis of one row per example.
params = {"w": w, "b": jnp.array(0.1)}


def loss_params(params, xi, yi):
    return (jnp.dot(xi, params["w"]) + params["b"] - yi) ** 2


grads = jax.vmap(jax.grad(loss_params), in_axes=(None, 0, 0))(params, x, y)
print("per-example gradient shapes:", {k: v.shape for k, v in grads.items()})
assert grads["w"].shape == (3, 2) and grads["b"].shape == (3,)
assert jnp.allclose(grads["b"], 2.0 * (x @ w + 0.1 - y))  # d/db of (x_i . w + b - y_i)^2
