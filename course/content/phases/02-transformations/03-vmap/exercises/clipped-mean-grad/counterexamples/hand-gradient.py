# max-score: 5
# why: the squared error's gradient derived by hand (an unused jax.grad beside it): wrong for the loss drawn at grading time
def clipped_mean_grad(w, x, y):
    jax.grad(jnp.sum)(w)
    grads = jax.vmap(lambda xi, yi: 2.0 * (jnp.dot(xi, w) - yi) * xi)(x, y)
    norms = jnp.linalg.norm(grads, axis=1, keepdims=True)
    factors = jnp.minimum(1.0, {{clip}} / jnp.maximum(norms, 1e-12))
    return jnp.mean(grads * factors, axis=0)
