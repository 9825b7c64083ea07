# Multiply in bfloat16, accumulate in float32 (Challenge): keep the float32 master copy, cast
# the operands down, and ask the dot product for a float32 result.
w = jnp.linspace(-1.0, 1.0, 12, dtype=jnp.float32).reshape(3, 4)
v = jnp.array([0.1, 0.2, 0.3, 0.4], dtype=jnp.float32)
reference = w @ v
w_low, v_low = ..., ...  # TODO: bfloat16 copies of w and v
low = ...  # TODO: jnp.dot of the bfloat16 copies with a float32 result
operand_dtype, low_dtype = w_low.dtype.name, low.dtype.name  # TODO: works once both are arrays
max_error = float(jnp.max(jnp.abs(low - reference)))
assert w.dtype == jnp.float32 and operand_dtype == "bfloat16"  # TODO: check
assert low_dtype == "float32"  # TODO: check
assert max_error < 2e-2  # TODO: complete assertion check
