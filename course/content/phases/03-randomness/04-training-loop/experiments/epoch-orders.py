# Experiment — fold_in(key, epoch) gives every epoch its own order, and each order is a
# permutation (every example once). Reusing one key for every epoch would show the model the
# same batches in the same order each time.
first, second = epoch_batches(shuffle_key, 0, 256), epoch_batches(shuffle_key, 1, 256)
print("epoch 0 and 1 start with", first[0, :3], "and", second[0, :3])
assert not jnp.array_equal(first, second)
assert jnp.array_equal(jnp.sort(second.ravel()), jnp.arange(256))
print("256 examples in batches of", BATCH, "->", first.shape[0], "batches; with 250 examples:",
      epoch_batches(shuffle_key, 0, 250).shape[0], "full batches (the last 26 wait for the next epoch)")
