# max-score: 3
# why: the derivative of the lesson's f derived by hand (an unused jax.grad beside it) instead of jax.grad(wavy): wrong for the wavy drawn at grading time
def wavy(w):
    return jnp.sum(jnp.sin(w) * w)


def directional_check(w, v):
    jax.grad(wavy)(w)
    autodiff = jnp.vdot(jnp.sin(w) + w * jnp.cos(w), v)
    return autodiff, central_difference(wavy, w, v)
