# Widen before you overflow (Practice): a weak Python int keeps an int8 array int8, so the
# product wraps around; cast to int32 first when the result needs the range.
counts = jnp.array([1, 2, 3], dtype=jnp.int8)
scaled = ...  # TODO: counts * 100 as written (predict the dtype and values first)
safe = ...  # TODO: the same product computed in int32
scaled_dtype, safe_dtype = scaled.dtype.name, safe.dtype.name  # TODO: works once both are arrays
assert scaled.dtype == jnp.int8 and safe.dtype == jnp.int32  # TODO: complete assertion check
assert jnp.array_equal(scaled, jnp.array([100, -56, 44], dtype=jnp.int8))  # TODO: check
assert jnp.array_equal(safe, jnp.array([100, 200, 300]))  # TODO: complete assertion check
