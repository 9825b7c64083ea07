# Place an array explicitly (Practice): naming the device commits the array to it, and the
# result of an operation on committed inputs stays on that device.
weights = np.array([0.5, 0.25, 0.25], dtype=np.float32)
placed_weights = ...  # TODO: jax.device_put weights onto the first CPU device
weighted_sum = ...  # TODO: the dot product of placed_weights and doubled
n_devices = ...  # TODO: how many devices hold placed_weights
committed = ...  # TODO: is placed_weights committed to its device?
assert committed and n_devices == 1  # TODO: complete assertion check
assert weighted_sum.devices() == placed_weights.devices()  # TODO: complete assertion check
assert float(weighted_sum) == 12.5  # TODO: complete assertion check
