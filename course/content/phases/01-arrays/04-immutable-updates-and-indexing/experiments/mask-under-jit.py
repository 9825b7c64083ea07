# Experiment — A boolean mask selects a value-dependent number of elements, which jit cannot trace.
import jax


@jax.jit
def compact(values):
    return values[values > 2.]          # output length depends on the values


@jax.jit
def keep_shape(values):
    return jnp.where(values > 2., values, 0.)   # same shape as the input, for any values


try:
    compact(x)
except jax.errors.NonConcreteBooleanIndexError as error:
    failure = type(error).__name__
else:
    raise AssertionError("boolean-mask indexing unexpectedly worked under jit")
assert failure == "NonConcreteBooleanIndexError"
assert jnp.array_equal(keep_shape(x), jnp.array([0., 0., 3., 4.]))
assert jnp.array_equal(x[x > 2.], jnp.array([3., 4.]))   # outside jit the mask works
print("under jit:", failure, "| jnp.where:", keep_shape(x))
