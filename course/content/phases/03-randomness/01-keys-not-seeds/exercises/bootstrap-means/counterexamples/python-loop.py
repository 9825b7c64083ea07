# max-score: 9
# why: the right keys in a Python loop over the resamples, where vmap is taught: the trace grows with b
def bootstrap_means(seed, x, b):
    keys = jax.random.split(jax.random.key(seed), b)
    return jnp.stack([x[jax.random.randint(k, ({{m}},), 0, x.shape[0])].mean() for k in keys])
