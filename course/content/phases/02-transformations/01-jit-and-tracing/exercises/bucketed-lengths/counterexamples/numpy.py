# max-score: 8
# why: NumPy instead of JAX (np.pad and a mean on the host, returned as a JAX array): nothing is traced or compiled
import numpy as np


def bucketed_mean(v):
    size = -(-v.shape[0] // {{bucket}}) * {{bucket}}
    padded = np.pad(np.asarray(v), (0, size - v.shape[0]))
    return jnp.asarray(padded.sum() / v.shape[0], dtype=jnp.float32), size
