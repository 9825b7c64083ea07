# max-score: 8
# why: the right keys, but a Python loop over the rows where vmap is taught: the trace grows with the rows
def add_noise(seed, x):
    keys = jax.random.split(jax.random.key(seed), x.shape[0])
    return x + {{sigma}} * jnp.stack([jax.random.normal(k, row.shape) for k, row in zip(keys, x)])
