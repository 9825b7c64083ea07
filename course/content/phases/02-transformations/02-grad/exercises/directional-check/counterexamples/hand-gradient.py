# max-score: 10
# why: the derivative of f derived by hand instead of jax.grad(f)
def directional_check(w, v):
    def f(w):
        return {{a}} * jnp.sum(jnp.sin(w) * w)

    autodiff = {{a}} * jnp.vdot(jnp.sin(w) + w * jnp.cos(w), v)
    return autodiff, central_difference(f, w, v)
