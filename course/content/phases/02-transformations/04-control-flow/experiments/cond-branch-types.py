# Experiment — lax.cond compiles both branches into one program, so they must return the same
# structure, shapes and dtypes: a branch that returns an int32 where the other returns a
# float32 is refused with a TypeError while tracing, whichever branch would run.
g = jnp.array([1.4, -2.6])
try:
    lax.cond(True, lambda g: g * 2.0, lambda g: g.astype(jnp.int32), g)
    raise AssertionError("branches with different dtypes should be refused")
except TypeError as err:
    print("mismatched branches:", type(err).__name__, "-", str(err).splitlines()[0][:42])
matched = lax.cond(False, lambda g: g * 2.0, jnp.round, g)  # round keeps float32
print("matching branches:", matched, matched.dtype)
assert matched.dtype == g.dtype and jnp.array_equal(matched, jnp.array([1.0, -3.0]))
