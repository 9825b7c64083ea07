# Place an array explicitly (Practice): naming the device commits the array to it, and the
# result of an operation on committed inputs stays on that device.
weights = np.array([0.5, 0.25, 0.25], dtype=np.float32)
placed_weights = jax.device_put(weights, jax.devices("cpu")[0])
weighted_sum = jnp.dot(placed_weights, doubled)
n_devices = len(placed_weights.devices())
committed = placed_weights.committed
assert committed and n_devices == 1
assert weighted_sum.devices() == placed_weights.devices()
assert float(weighted_sum) == 12.5
