# Experiment — jnp.where computes both sides, and so does its gradient: at x = 0 the unused
# log(x) has an infinite derivative, and 0 * inf is nan. Make the unused side safe too (a
# second where on the input) and the gradient is finite.
def log_or_zero(x):
    return jnp.where(x > 0, jnp.log(x), 0.0)


def safe_log_or_zero(x):
    safe_x = jnp.where(x > 0, x, 1.0)  # the log never sees a value it cannot differentiate
    return jnp.where(x > 0, jnp.log(safe_x), 0.0)


naive, safe = jax.grad(log_or_zero)(0.0), jax.grad(safe_log_or_zero)(0.0)
print("values at 0:", log_or_zero(0.0), safe_log_or_zero(0.0), "| gradients at 0: naive", naive,
      "| safe", safe)
assert jnp.isnan(naive) and safe == 0.0
assert jax.grad(safe_log_or_zero)(2.0) == 0.5  # where x > 0 the gradient is still 1 / x
