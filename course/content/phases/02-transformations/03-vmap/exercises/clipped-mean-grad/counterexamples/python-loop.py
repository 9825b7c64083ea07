# max-score: 8
# why: one jax.grad per example from a Python loop, where vmap of grad is taught
def clipped_mean_grad(w, x, y):
    grads = jnp.stack([jax.grad(loss_one)(w, xi, yi) for xi, yi in zip(x, y)])
    norms = jnp.linalg.norm(grads, axis=1, keepdims=True)
    factors = jnp.minimum(1.0, {{clip}} / jnp.maximum(norms, 1e-12))
    return jnp.mean(grads * factors, axis=0)
