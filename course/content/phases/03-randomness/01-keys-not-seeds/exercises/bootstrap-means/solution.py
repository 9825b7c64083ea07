# Bootstrap means (Challenge): b resamples of {{m}} values drawn with replacement, each resample
# from its own key.
def bootstrap_means(seed, x, b):
    keys = jax.random.split(jax.random.key(seed), b)
    picks = jax.vmap(lambda k: jax.random.randint(k, ({{m}},), 0, x.shape[0]))(keys)
    return x[picks].mean(axis=1)


means = bootstrap_means(0, jnp.arange(10.0), 8)
print("bootstrap means:", means.shape, "| spread:", float(means.std()))
