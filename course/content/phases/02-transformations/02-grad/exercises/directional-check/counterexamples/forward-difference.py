# max-score: 7
# why: a forward difference instead of step 4's central one: its error (~h |f''| / 2) exceeds float32 rounding amplified by 1/(2h) on the drawn inputs
def wavy(w):
    return jnp.sum(jnp.sin(w) * w)


def directional_check(w, v):
    autodiff = jnp.vdot(jax.grad(wavy)(w), v)
    numeric = (wavy(w + 1e-3 * v) - wavy(w)) / 1e-3
    return autodiff, numeric
