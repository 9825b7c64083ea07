# max-score: 4
# why: one key reused for every resample (split called, its keys unused): every resample is the same
def bootstrap_means(seed, x, b):
    key = jax.random.key(seed)
    jax.random.split(key, b)
    picks = jax.vmap(lambda _: jax.random.randint(key, ({{m}},), 0, x.shape[0]))(jnp.arange(b))
    return x[picks].mean(axis=1)
