# Experiment — Negative indices wrap like NumPy's only in range. Out of range, -5 wraps to -1,
# still out of bounds: the read clamps it to 0, the write (FILL_OR_DROP) is dropped.
import numpy as np

assert float(x[-1]) == 4.
assert float(x[-4]) == 1.
last_zeroed = x.at[-1].set(0.)
assert jnp.array_equal(last_zeroed, jnp.array([1., 2., 3., 0.]))
assert jnp.array_equal(x.at[-2:].set(0.), jnp.array([1., 2., 0., 0.]))
past_the_start = x[-5]             # NumPy raises here; JAX wraps to -1, then clamps to 0
assert float(past_the_start) == float(x[0]) == 1.
write_past_the_start = x.at[-5].set(99.)  # the same index in a write: dropped, x unchanged
assert jnp.array_equal(write_past_the_start, x)
try:
    np.asarray(x)[-5]
    raise AssertionError("NumPy should have raised")
except IndexError:
    numpy_raises = True
print("x[-1] ->", x[-1], "| x.at[-1].set(0.) ->", last_zeroed, "| x[-5] ->", past_the_start,
      "| x.at[-5].set(99.) ->", write_past_the_start, "| NumPy x[-5] raises:", numpy_raises)
