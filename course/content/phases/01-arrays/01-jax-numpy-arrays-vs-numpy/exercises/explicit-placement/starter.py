# Place an array explicitly (Practice): naming the device commits the array to it, and the
# result of an operation on committed inputs stays on that device.
def weighted_sum(weights, values):
    placed = ...  # TODO: jax.device_put the weights onto the first CPU device
    return ...  # TODO: the dot product of placed and values


weights = np.array([0.5, 0.25, 0.25], dtype=np.float32)
print("weighted_sum:", weighted_sum(weights, doubled))
