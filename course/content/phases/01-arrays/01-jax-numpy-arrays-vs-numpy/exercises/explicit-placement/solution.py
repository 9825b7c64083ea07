# Place an array explicitly (Practice): naming the device commits the array to it, and the
# result of an operation on committed inputs stays on that device.
def weighted_sum(weights, values):
    placed = jax.device_put(weights, jax.devices("cpu")[0])
    return jnp.dot(placed, values)


weights = np.array([0.5, 0.25, 0.25], dtype=np.float32)
placed_weights = jax.device_put(weights, jax.devices("cpu")[0])
print("committed:", placed_weights.committed, "| weighted_sum:", weighted_sum(weights, doubled))
assert placed_weights.committed and len(placed_weights.devices()) == 1
