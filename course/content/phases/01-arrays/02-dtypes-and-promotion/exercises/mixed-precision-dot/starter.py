# Multiply in bfloat16, accumulate in float32 (Challenge): keep the float32 master copy, cast
# the operands down, and ask the dot product for a float32 result.
def low_precision_matvec(w, v):
    return ...  # TODO: jnp.dot of bfloat16 copies of w and v, with a float32 result


w = jnp.linspace(-1.0, 1.0, 12, dtype=jnp.float32).reshape(3, 4)
v = jnp.array([0.1, 0.2, 0.3, 0.4], dtype=jnp.float32)
low = low_precision_matvec(w, v)
print("low:", low)
