# Experiment — Negative indices wrap around from the end, as in NumPy.
assert float(x[-1]) == 4.
assert float(x[-4]) == 1.
last_zeroed = x.at[-1].set(0.)
assert jnp.array_equal(last_zeroed, jnp.array([1., 2., 3., 0.]))
assert jnp.array_equal(x.at[-2:].set(0.), jnp.array([1., 2., 0., 0.]))
print("x[-1] ->", x[-1], "| x.at[-1].set(0.) ->", last_zeroed)
