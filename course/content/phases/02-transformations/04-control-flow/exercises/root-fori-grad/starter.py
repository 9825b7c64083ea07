# Differentiate through a bounded loop (Challenge): Newton's method for y ** {{k}} = a in a
# fori_loop with a fixed number of steps, so jax.grad can run it backwards.
def root_and_slope(a):
    def root(a):
        def newton(i, y):
            return y  # TODO: one Newton step, y - (y ** {{k}} - a) / ({{k}} * y ** ({{k}} - 1))

        return newton(0, jnp.ones_like(a))  # TODO: 30 steps with lax.fori_loop from 1.0

    return root(a), jnp.zeros_like(a)  # TODO: the slope is jax.grad(root)(a)


value, rate = root_and_slope(2.0)
print("root:", value, "| slope:", rate)
