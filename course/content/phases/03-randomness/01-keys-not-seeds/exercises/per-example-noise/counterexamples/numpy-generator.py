# max-score: 4
# why: NumPy's generator seeded with the seed: not JAX's keys, other numbers, and it does not trace
import numpy as np


def add_noise(seed, x):
    return x + {{sigma}} * np.random.default_rng(seed).normal(size=x.shape).astype(np.float32)
