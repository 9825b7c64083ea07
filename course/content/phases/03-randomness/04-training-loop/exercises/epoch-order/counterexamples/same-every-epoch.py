# max-score: 5
# why: one permutation from the seed's key for every epoch (the epoch unused): the same batches each epoch
def epoch_order(seed, epoch, x):
    n = x.shape[0]
    perm = jax.random.permutation(jax.random.key(seed), n) + 0 * epoch
    return x[perm[: n // {{b}} * {{b}}]].reshape(-1, {{b}}, x.shape[1])
