# Experiment — Out of bounds, the default mode is promise_in_bounds: nothing is checked.
# x = [1., 2., 3., 4.] has valid indices 0..3; index 10 is out of bounds.
import jax

gather = jax.make_jaxpr(lambda v, i: v[i])(x, jnp.array([10]))
assert "PROMISE_IN_BOUNDS" in str(gather)  # the default is a promise, not a policy
read = x[10]                       # what happens today: the read is clamped to index 3
assert float(read) == 4.
assert float(x.at[10].get()) == 4.  # the same default through .at[...].get()
written = x.at[10].set(99.)        # and the out-of-bounds update is dropped
assert jnp.array_equal(written, x)
assert jnp.array_equal(x.at[10].add(1.), x)
print("gather mode: PROMISE_IN_BOUNDS | x[10] ->", read, "| x.at[10].set(99.) ->", written)
