# Experiment — See where data is copied between NumPy and JAX: jnp.asarray copies a NumPy array
# onto the device, np.asarray gives a read-only view, np.array gives a writable copy.
source = np.arange(4, dtype=np.float32)
on_device = jnp.asarray(source)
source[:] = -1.0  # mutate the NumPy buffer after the transfer

view = np.asarray(on_device)
copy = np.array(on_device)
copy[0] = 42.0
try:
    view[0] = 42.0
except ValueError as err:
    view_error = str(err)
else:
    raise AssertionError("np.asarray of a JAX array was writable")

print("device value after mutating the source:", on_device)
print("writable copy:", copy, "| read-only view refused:", view_error)
assert jnp.array_equal(on_device, jnp.arange(4, dtype=jnp.float32))
assert np.array_equal(copy, np.array([42.0, 1.0, 2.0, 3.0], dtype=np.float32))
assert view_error == "assignment destination is read-only"
