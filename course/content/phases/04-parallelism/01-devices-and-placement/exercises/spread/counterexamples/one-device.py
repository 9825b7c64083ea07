# max-score: 7
# why: commits x to a single device: placed, but not split over the mesh
def spread(x):
    return jax.device_put(x, jax.devices()[7])
