# Experiment — optax builds optimizers from gradient transformations: chain(clip, adam) first
# clips the gradient tree to a global norm, then applies adam. Its state is a tuple of the parts'
# states, still a pytree, so it goes through jit and into a checkpoint like the parameters.
chained = optax.chain(optax.clip_by_global_norm(1.0), optax.adam(0.05))
chained_state = chained.init(params)
print("chain's state:", type(chained_state).__name__, "of", len(chained_state), "parts,",
      len(jax.tree.leaves(chained_state)), "leaves")
big = jax.tree.map(lambda g: 100.0 * g, grads)
clipped, _ = optax.clip_by_global_norm(1.0).update(big, optax.EmptyState())
print("global norm before and after clipping:", round(float(optax.global_norm(big)), 2),
      "->", round(float(optax.global_norm(clipped)), 4))
assert jnp.allclose(optax.global_norm(clipped), 1.0)
