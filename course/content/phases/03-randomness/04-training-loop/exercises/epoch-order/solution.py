# One epoch's batches (Exercise): a permutation from the epoch's key, cut into full batches.
def epoch_order(seed, epoch, x):
    n = x.shape[0]
    perm = jax.random.permutation(jax.random.fold_in(jax.random.key(seed), epoch), n)
    return x[perm[: n // {{b}} * {{b}}]].reshape(-1, {{b}}, x.shape[1])


batches = epoch_order(0, 0, train_x)
print("epoch 0 as batches:", batches.shape)
