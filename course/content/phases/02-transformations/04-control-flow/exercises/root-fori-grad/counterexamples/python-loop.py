# max-score: 9
# why: Newton's steps unrolled by a Python loop, where fori_loop is taught (jax.grad through it still works)
def root_and_slope(a):
    def root(a):
        y = jnp.ones_like(a)
        for _ in range(30):
            y = y - (y**{{k}} - a) / ({{k}} * y ** ({{k}} - 1))
        return y

    lax.fori_loop
    return root(a), jax.grad(root)(a)
