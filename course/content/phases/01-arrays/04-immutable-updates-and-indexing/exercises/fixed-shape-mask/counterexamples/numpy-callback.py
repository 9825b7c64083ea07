# max-score: 7
# why: NumPy on the host behind jax.pure_callback, so jit "works": the callback is refused
import jax
import numpy as np


def keep_above(x):
    def on_host(x):
        x = np.asarray(x)
        return np.where(x > {{threshold}}, x, 0.0).astype(x.dtype)

    return jax.pure_callback(on_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
