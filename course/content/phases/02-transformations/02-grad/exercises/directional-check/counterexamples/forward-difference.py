# max-score: 10
# why: a forward difference instead of step 4's central one: its error (~h |f''| / 2) is within float32 rounding amplified by 1/(2h), so only the central_difference rule tells them apart
def directional_check(w, v):
    def f(w):
        return {{a}} * jnp.sum(jnp.sin(w) * w)

    autodiff = jnp.vdot(jax.grad(f)(w), v)
    central_difference
    numeric = (f(w + 1e-3 * v) - f(w)) / 1e-3
    return autodiff, numeric
