# max-score: 4
# why: a fresh key from seed + step instead of fold_in: other numbers (and seeds of nearby runs collide)
def step_uniforms(seed, steps):
    return jax.vmap(lambda s: jax.random.uniform(jax.random.key(seed + s), ({{d}},)))(steps)
