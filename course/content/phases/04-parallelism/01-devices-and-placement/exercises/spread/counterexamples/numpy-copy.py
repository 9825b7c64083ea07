# max-score: 6
# why: a NumPy copy is not a jax.Array and has no sharding at all
def spread(x):
    return np.array(x)
