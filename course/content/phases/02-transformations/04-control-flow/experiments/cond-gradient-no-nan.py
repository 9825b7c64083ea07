# Experiment — lax.cond differentiates only the branch it takes; jnp.where differentiates both
# sides. At x = 0 the log side has the derivative 1 / 0 = inf: where multiplies it by a zero
# cotangent (nan), cond never looks at it. lax.switch and jnp.select are the n-way forms.
def log_or_zero_where(x):
    return jnp.where(x > 0, jnp.log(x), 0.0)


def log_or_zero_cond(x):
    return lax.cond(x > 0, jnp.log, lambda x: 0.0 * x, x)


grads = {name: float(jax.jit(jax.grad(fn))(0.0))
         for name, fn in (("where", log_or_zero_where), ("cond", log_or_zero_cond))}
print("gradient at 0: jnp.where", grads["where"], "| lax.cond", grads["cond"],
      "| cond at 2:", jax.grad(log_or_zero_cond)(2.0))
assert jnp.isnan(grads["where"]) and grads["cond"] == 0.0
assert jax.grad(log_or_zero_cond)(2.0) == 0.5

# lax.switch: an integer index picks one of n functions (out-of-range indices are clamped).
branches = [lambda v: v, lambda v: -v, lambda v: v * v]
picked = [float(lax.switch(i, branches, 3.0)) for i in (0, 1, 2, 7)]
print("lax.switch with index 0, 1, 2 and 7 (clamped to 2):", picked)
assert picked == [3.0, -3.0, 9.0, 9.0]

# jnp.select: the first true condition, element by element, and a default; all sides computed.
v = jnp.array([-2.0, -0.5, 0.5, 2.0])
bands = jnp.select([v < -1.0, v < 1.0], [-1.0 + 0.0 * v, v], default=1.0)
print("jnp.select into three bands:", bands)
assert jnp.array_equal(bands, jnp.array([-1.0, -0.5, 0.5, 1.0]))
