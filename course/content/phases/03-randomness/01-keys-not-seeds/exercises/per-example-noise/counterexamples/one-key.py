# max-score: 5
# why: one key for the whole array (and an unused split beside it): other numbers than per-row keys
def add_noise(seed, x):
    key = jax.random.key(seed)
    jax.random.split(key, x.shape[0])
    return x + {{sigma}} * jax.random.normal(key, x.shape)
