# max-score: 7
# why: NumPy on the host behind jax.pure_callback: not compiled (jit check) and not vectorised
import numpy as np


def scores(w, xs):
    def on_host(w, xs):
        return np.tanh({{k}} * (np.asarray(xs) @ np.asarray(w))).astype(np.float32)

    shape = jax.ShapeDtypeStruct((xs.shape[0],), jnp.float32)
    return jax.pure_callback(on_host, shape, w, xs)
