# Edit a copy on the host (Exercise): np.array copies the device value into a writable NumPy
# buffer; jnp.asarray sends the edited buffer back as a new JAX array.
edited = ...  # TODO: a writable NumPy copy of y (np.asarray gives a read-only view)
edited[-1] = -1.0  # TODO: this in-place write works once edited is a NumPy array
returned = ...  # TODO: send edited back to JAX
assert isinstance(returned, jax.Array)  # TODO: complete assertion check
assert jnp.array_equal(returned, jnp.array([10.0, 2.0, -1.0]))  # TODO: complete assertion check
assert jnp.array_equal(y, jnp.array([10.0, 2.0, 3.0]))  # TODO: complete assertion check
