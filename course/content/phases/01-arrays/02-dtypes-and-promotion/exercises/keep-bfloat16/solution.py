# Keep activations in bfloat16 (Exercise): a strong float32 operand promotes bfloat16 to
# float32; cast it first, and let weak Python scalars keep the dtype.
activations = jnp.array([-1.0, -0.5, 0.0, 0.5, 1.0], dtype=jnp.bfloat16)
bias = jnp.full(5, 0.25, dtype=jnp.float32)
promoted = activations + bias
kept = activations + bias.astype(jnp.bfloat16)
scaled = kept * 2.0
promoted_dtype, kept_dtype, scaled_dtype = promoted.dtype.name, kept.dtype.name, scaled.dtype.name
scaled_values = scaled.astype(jnp.float32)
assert promoted.dtype == jnp.float32
assert kept.dtype == scaled.dtype == jnp.bfloat16
assert jnp.array_equal(scaled_values, jnp.array([-1.5, -0.5, 0.5, 1.5, 2.5]))
