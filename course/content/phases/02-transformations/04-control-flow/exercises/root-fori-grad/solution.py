# Differentiate through a bounded loop (Challenge): Newton's method for y ** {{k}} = a in a
# fori_loop with a fixed number of steps, so jax.grad can run it backwards.
def root_and_slope(a):
    def root(a):
        def newton(i, y):
            return y - (y**{{k}} - a) / ({{k}} * y ** ({{k}} - 1))

        return lax.fori_loop(0, 30, newton, jnp.ones_like(a))

    return root(a), jax.grad(root)(a)


value, rate = root_and_slope(2.0)
print("root:", value, "| slope:", rate)
assert jnp.allclose(value ** {{k}}, 2.0) and jnp.allclose(rate, value / ({{k}} * 2.0))
