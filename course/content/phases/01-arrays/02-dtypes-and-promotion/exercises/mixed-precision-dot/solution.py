# Multiply in bfloat16, accumulate in float32 (Challenge): keep the float32 master copy, cast
# the operands down, and ask the dot product for a float32 result.
def low_precision_matvec(w, v):
    return jnp.dot(w.astype(jnp.bfloat16), v.astype(jnp.bfloat16),
                   preferred_element_type=jnp.float32)


w = jnp.linspace(-1.0, 1.0, 12, dtype=jnp.float32).reshape(3, 4)
v = jnp.array([0.1, 0.2, 0.3, 0.4], dtype=jnp.float32)
low = low_precision_matvec(w, v)
max_error = float(jnp.max(jnp.abs(low - w @ v)))
print("low:", low.dtype, low, "| max error vs float32:", max_error)
assert w.dtype == jnp.float32 and low.dtype == jnp.float32 and max_error < 2e-2
