# Immutable updates and indexing: An indexed update in JAX returns an array value.
# region step-1
import jax.numpy as jnp
x = jnp.array([1., 2., 3., 4.])
# endregion
# region step-2
y = x.at[1].set(20.)
z = x.at[jnp.array([0, 2])].add(5.)
# endregion
print("Original:", x)
print("Set:", y)
print("Add:", z)
# region step-3
assert jnp.allclose(x, jnp.array([1.,2.,3.,4.]))
assert jnp.allclose(y, jnp.array([1.,20.,3.,4.]))
assert jnp.allclose(z, jnp.array([6.,2.,8.,4.]))
# endregion
print("PASS: arrays-04")
