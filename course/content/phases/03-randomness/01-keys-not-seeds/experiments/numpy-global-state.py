# Experiment — NumPy's legacy generator keeps a hidden global state: the same call gives new
# numbers each time, and a draw anywhere (a library, another thread) moves everyone's stream.
# JAX has no such state: the only input to a draw is its key.
import numpy as np

np.random.seed(0)
a, b = np.random.normal(size=3), np.random.normal(size=3)
print("numpy, same call twice:", a.round(3), b.round(3))
assert not np.array_equal(a, b)  # the global state moved between the calls

np.random.seed(0)
np.random.normal(size=1)  # someone else's draw in between ...
c = np.random.normal(size=3)
print("numpy after another draw in between:", c.round(3))
assert not np.array_equal(a, c)  # ... changed the numbers you get

k = jax.random.key(0)
jax.random.normal(k, (1,))  # a draw elsewhere changes nothing
assert jnp.array_equal(jax.random.normal(k, (3,)), first)
print("jax, same key: always", jax.random.normal(k, (3,)))
