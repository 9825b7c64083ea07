# expect: graded
import jax.numpy as jnp
import numpy as np

jnp.allclose = lambda *args, **kwargs: True
np.allclose = lambda *args, **kwargs: True
np.testing.assert_allclose = lambda *args, **kwargs: None
x = jnp.array([1.0, 2.0, 3.0, 4.0])
masked = x  # wrong on purpose: the checks must still fail
assert jnp.allclose(masked, jnp.array([1.0, 2.0, 0.0, 0.0]))
