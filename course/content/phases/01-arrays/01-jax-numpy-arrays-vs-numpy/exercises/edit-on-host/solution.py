# Edit a copy on the host (Exercise): np.array copies the device value into a writable NumPy
# buffer; jnp.asarray sends the edited buffer back as a new JAX array.
edited = np.array(y)
edited[-1] = -1.0
returned = jnp.asarray(edited)
assert isinstance(returned, jax.Array)
assert jnp.array_equal(returned, jnp.array([10.0, 2.0, -1.0]))
assert jnp.array_equal(y, jnp.array([10.0, 2.0, 3.0]))
