# Keep activations in bfloat16 (Exercise): a strong float32 operand promotes bfloat16 to
# float32; cast it first, and let weak Python scalars keep the dtype.
def shift_and_scale(activations, bias):
    return ...  # TODO: (activations + bias) * {{scale}}, kept in the activations' dtype


activations = jnp.array([-1.0, -0.5, 0.0, 0.5, 1.0], dtype=jnp.bfloat16)
bias = jnp.full(5, 0.25, dtype=jnp.float32)
promoted = activations + bias
kept = shift_and_scale(activations, bias)
print("promoted:", promoted.dtype, "| kept:", kept)
