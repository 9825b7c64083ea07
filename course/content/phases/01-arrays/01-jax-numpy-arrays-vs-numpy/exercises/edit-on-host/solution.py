# Edit a copy on the host (Exercise): np.array copies the device value into a writable NumPy
# buffer; jnp.asarray sends the edited buffer back as a new JAX array.
def edit_on_host(y):
    edited = np.array(y)
    edited[-1] = {{value}}
    return jnp.asarray(edited)


returned = edit_on_host(y)
print("returned:", returned)
assert isinstance(returned, jax.Array)
assert jnp.array_equal(y, jnp.array([10.0, 2.0, 3.0]))
