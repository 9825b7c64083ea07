# max-score: 5
# why: split keys taken by position, not by step number: the keys follow the order of the list
def step_uniforms(seed, steps):
    keys = jax.random.split(jax.random.key(seed), steps.shape[0])
    return jax.vmap(lambda k: jax.random.uniform(k, ({{d}},)))(keys) + 0.0 * steps[:, None]
