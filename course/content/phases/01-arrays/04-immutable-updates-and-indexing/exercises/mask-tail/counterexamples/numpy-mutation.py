# max-score: 7
# why: NumPy instead of JAX: a copy assigned into on the host (no scatter, no jit, an item assignment)
import numpy as np


def mask_tail(x):
    y = np.array(x)
    y[-{{n}}:] = 0.0
    return jnp.asarray(y)
