# max-score: 4
# why: NumPy's generator seeded from seed and epoch: other orders, and not traced
import numpy as np


def epoch_order(seed, epoch, x):
    n = x.shape[0]
    perm = np.random.default_rng([seed, epoch]).permutation(n)
    return x[perm[: n // {{b}} * {{b}}]].reshape(-1, {{b}}, x.shape[1])
