# A key per step number (Practice): fold the step into the run's key, so any step's key can be
# recomputed from the step alone.
def step_uniforms(seed, steps):
    root = jax.random.key(seed)
    return jax.vmap(lambda s: jax.random.uniform(jax.random.fold_in(root, s), ({{d}},)))(steps)


print("steps 0, 1, 1000:", step_uniforms(2, jnp.array([0, 1, 1000])))
