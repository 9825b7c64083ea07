# Edit a copy on the host (Exercise): np.array copies the device value into a writable NumPy
# buffer; jnp.asarray sends the edited buffer back as a new JAX array.
def edit_on_host(y):
    edited = ...  # TODO: a writable NumPy copy of y (np.asarray gives a read-only view)
    # TODO: set the copy's last entry to {{value}} in place
    return edited  # TODO: send edited back to JAX


returned = edit_on_host(y)
print("returned:", returned)
assert jnp.array_equal(y, jnp.array([10.0, 2.0, 3.0]))
