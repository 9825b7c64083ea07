# Widen before you overflow (Practice): a weak Python int keeps an int8 array int8, so the
# product wraps around; cast to int32 first when the result needs the range.
counts = jnp.array([1, 2, 3], dtype=jnp.int8)
scaled = counts * 100
safe = counts.astype(jnp.int32) * 100
scaled_dtype, safe_dtype = scaled.dtype.name, safe.dtype.name
assert scaled.dtype == jnp.int8 and safe.dtype == jnp.int32
assert jnp.array_equal(scaled, jnp.array([100, -56, 44], dtype=jnp.int8))
assert jnp.array_equal(safe, jnp.array([100, 200, 300]))
