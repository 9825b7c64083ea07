# Keep activations in bfloat16 (Exercise): a strong float32 operand promotes bfloat16 to
# float32; cast it first, and let weak Python scalars keep the dtype.
activations = jnp.array([-1.0, -0.5, 0.0, 0.5, 1.0], dtype=jnp.bfloat16)
bias = jnp.full(5, 0.25, dtype=jnp.float32)
promoted = ...  # TODO: activations + bias exactly as given (predict its dtype first)
kept = ...  # TODO: activations + bias, with bias cast so the sum stays bfloat16
scaled = kept * 2.0  # TODO: works once kept is an array; does 2.0 change the dtype?
promoted_dtype, kept_dtype, scaled_dtype = promoted.dtype.name, kept.dtype.name, scaled.dtype.name
scaled_values = scaled.astype(jnp.float32)
assert promoted.dtype == jnp.float32  # TODO: complete assertion check
assert kept.dtype == scaled.dtype == jnp.bfloat16  # TODO: complete assertion check
assert jnp.array_equal(scaled_values, jnp.array([-1.5, -0.5, 0.5, 1.5, 2.5]))  # TODO: check
