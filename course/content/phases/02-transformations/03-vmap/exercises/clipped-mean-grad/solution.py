# Clip every example's gradient (Challenge): vmap of grad gives one gradient per example, which a
# mean of the batch loss would have mixed; scale each down to norm at most {{clip}}, then average.
def clipped_mean_grad(w, x, y):
    grads = jax.vmap(jax.grad(loss_one), in_axes=(None, 0, 0))(w, x, y)  # (n, len(w))
    norms = jnp.linalg.norm(grads, axis=1, keepdims=True)
    factors = jnp.minimum(1.0, {{clip}} / jnp.maximum(norms, 1e-12))  # a zero norm stays 0
    return jnp.mean(grads * factors, axis=0)


clipped = clipped_mean_grad(w, x, y)
print("clipped mean gradient:", clipped, "| unclipped:", per_example.mean(axis=0))
assert jnp.linalg.norm(clipped) <= {{clip}} * (1.0 + 1e-6)
