# Experiment — See where memory is shared between NumPy and JAX: jnp.array copies (once the
# asynchronous transfer has finished), jax.device_put on CPU may reuse the NumPy buffer, and
# np.asarray of a JAX array is a read-only view while np.array is a writable copy.
raw = np.zeros(4 + 16, dtype=np.float32)
start = (-raw.ctypes.data % 64) // 4  # a 64-byte-aligned buffer, as NumPy often allocates
source = raw[start : start + 4]
source[:] = [0.0, 1.0, 2.0, 3.0]

copied = jnp.array(source).block_until_ready()  # the transfer is asynchronous: wait for it
maybe_shared = jax.device_put(source)
shares = maybe_shared.unsafe_buffer_pointer() == source.ctypes.data
source[0] = 99.0  # write to the NumPy buffer after handing it to JAX

print("jnp.array copy after the write:", copied)
print("device_put shares the NumPy buffer:", shares, "| its value now:", maybe_shared)
assert float(copied[0]) == 0.0
assert (float(maybe_shared[0]) == 99.0) == shares  # a shared buffer shows the write

view = np.asarray(copied)
copy = np.array(copied)
copy[0] = 42.0
try:
    view[0] = 42.0
except ValueError as err:
    view_error = str(err)
else:
    raise AssertionError("np.asarray of a JAX array was writable")
print("writable copy:", copy, "| read-only view refused:", view_error)
assert np.array_equal(copy, np.array([42.0, 1.0, 2.0, 3.0], dtype=np.float32))
assert view_error == "assignment destination is read-only"
assert float(copied[0]) == 0.0
