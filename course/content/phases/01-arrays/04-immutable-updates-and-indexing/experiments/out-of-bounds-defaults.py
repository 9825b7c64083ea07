# Experiment — Out-of-bounds indices do not raise: a read clamps, an update is dropped.
# x = [1., 2., 3., 4.] has valid indices 0..3; index 10 is out of bounds.
read = x[10]                       # gather: the index is clamped to the last valid one (3)
assert float(read) == 4.
assert float(x.at[10].get()) == 4.  # the same default through .at[...].get()
written = x.at[10].set(99.)        # scatter: the out-of-bounds update is silently dropped
assert jnp.array_equal(written, x)
assert jnp.array_equal(x.at[10].add(1.), x)
print("x[10] ->", read, "| x.at[10].set(99.) ->", written)
