# Experiment — a checkpoint that forgets the epoch counter resumes with epoch 0's shuffle: the
# parameters and optimizer state are right, the batches are not, and the run leaves the
# straight trajectory. Everything the next step reads must be in the checkpoint.
forgetful = advance(dict(advance(start, 2), epoch=jnp.array(0)), 2)
differs = not all(jnp.array_equal(a, b) for a, b in zip(jax.tree.leaves(straight["params"]),
                                                       jax.tree.leaves(forgetful["params"])))
print("resumed with the epoch reset to 0 differs from the straight run:", differs)
assert differs
