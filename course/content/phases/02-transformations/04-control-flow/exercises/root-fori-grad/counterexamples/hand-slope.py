# max-score: 9
# why: the slope from the implicit-function formula by hand (an unused jax.grad): no reverse pass through the loop
def root_and_slope(a):
    def newton(i, y):
        return y - (y**{{k}} - a) / ({{k}} * y ** ({{k}} - 1))

    jax.grad(jnp.sin)(1.0)
    y = lax.fori_loop(0, 30, newton, jnp.ones_like(a))
    return y, y / ({{k}} * a)
