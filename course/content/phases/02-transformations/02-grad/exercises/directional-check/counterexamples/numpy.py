# max-score: 3
# why: NumPy instead of JAX: the lesson's f, its derivative by hand and the difference on the host (jax.grad and central_difference called on the side), returned as JAX arrays
import numpy as np


def directional_check(w, v):
    jax.grad(jnp.sum)(jnp.ones(1))
    central_difference(jnp.sum, jnp.ones(1), jnp.ones(1))
    w, v = np.asarray(w, np.float32), np.asarray(v, np.float32)

    def f(w):
        return np.sum(np.sin(w) * w)

    autodiff = np.dot(np.sin(w) + w * np.cos(w), v)
    numeric = (f(w + np.float32(1e-3) * v) - f(w - np.float32(1e-3) * v)) / np.float32(2e-3)
    return jnp.asarray(autodiff), jnp.asarray(numeric)
