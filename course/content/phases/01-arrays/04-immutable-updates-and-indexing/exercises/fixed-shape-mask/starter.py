# Keep shape while masking values (Challenge): Both are useful representations, but they are not...
fixed_shape = jnp.where(...)  # TODO: compute fixed_shape
selected = ...  # TODO: compute selected
# Check tensor shape invariant: `fixed_shape.shape == (4,)`
assert fixed_shape.shape  # TODO: complete assertion check
# Check tensor shape invariant: `selected.shape == (2,)`
assert selected.shape  # TODO: complete assertion check
assert jnp.allclose(fixed_shape, jnp.array([0., 0., 3., 4.]))  # TODO: complete assertion check
assert jnp.allclose(selected, jnp.array([3., 4.]))  # TODO: complete assertion check
