# Experiment — Change the input shape: a new shape forces a new trace, which reads the global
# as it is now. The same function then gives answers from two different values of `scale`.
longer = jnp.array([1.0, 2.0, 3.0, 4.0])
from_new_trace = scale_by_global(longer)  # new shape (4,): traced now, with scale = 10.0
from_old_trace = scale_by_global(x)  # shape (3,): the cached trace from scale = 2.0
print("shape (4,) after scale=10:", from_new_trace)
print("shape (3,) still:", from_old_trace)
assert jnp.array_equal(from_new_trace, jnp.array([10.0, 20.0, 30.0, 40.0]))
assert jnp.array_equal(from_old_trace, jnp.array([2.0, 4.0, 6.0]))
