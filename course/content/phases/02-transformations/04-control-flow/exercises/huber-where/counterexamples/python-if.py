# max-score: 8
# why: a Python if on the values (an unused jnp.where beside it): JAX cannot trace it, so it fails under jit and chooses nothing inside a program
def huber(x):
    jnp.where(True, 0.0, 1.0)
    if jnp.all(jnp.abs(x) <= {{d}}):
        return 0.5 * x**2
    small = 0.5 * x**2
    large = {{d}} * (jnp.abs(x) - 0.5 * {{d}})
    return jnp.where(jnp.abs(x) <= {{d}}, small, large)
