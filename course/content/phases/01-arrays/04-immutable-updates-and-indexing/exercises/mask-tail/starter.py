# Exercise solution: Replace the last two elements with zero in a new array.
masked = ...  # TODO: compute masked
assert jnp.allclose(masked, jnp.array([1.,2.,0.,0.]))  # TODO: complete assertion check
assert jnp.allclose(x, jnp.array([1.,2.,3.,4.]))  # TODO: complete assertion check
