# max-score: 7
# why: NumPy instead of JAX: a copy assigned into on the host (no scatter, no jit, an item assignment)
import numpy as np


def fill_last_column(matrix):
    m = np.array(matrix)
    m[:, -1] = {{value}}
    return jnp.asarray(m)
