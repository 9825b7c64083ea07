# Dtypes: JAX defaults to 32-bit types, promotes mixed dtypes on a lattice that avoids silent
# widening, and treats Python scalars as weakly typed so they never change an array's dtype.
# region step-1
import jax
import jax.numpy as jnp
import numpy as np

floats = jnp.array([1.0, 2.0, 3.0])
ints = jnp.arange(3)
from_numpy = jnp.asarray(np.array([1.0, 2.0, 3.0]))
print("x64 enabled:", jax.config.jax_enable_x64)
print("NumPy defaults:", np.array([1.0]).dtype, np.arange(3).dtype)
print("JAX defaults:", floats.dtype, ints.dtype, "| NumPy float64 input ->", from_numpy.dtype)
assert not jax.config.jax_enable_x64
assert floats.dtype == jnp.float32 and ints.dtype == jnp.int32
assert from_numpy.dtype == jnp.float32
# endregion

# region step-2
pairs = [(jnp.int32, jnp.float16), (jnp.int8, jnp.uint8), (jnp.bfloat16, jnp.float16)]
for a, b in pairs:
    jax_type, numpy_type = jnp.promote_types(a, b), np.promote_types(a, b)
    print(f"promote {jnp.dtype(a).name} with {jnp.dtype(b).name}: JAX {jax_type}, "
          f"NumPy {numpy_type}")
mixed = jnp.ones(2, dtype=jnp.int32) + jnp.ones(2, dtype=jnp.float16)
print("int32 array + float16 array ->", mixed.dtype,
      "| result_type:", jnp.result_type(jnp.int32, jnp.float16))
assert jnp.promote_types(jnp.int32, jnp.float16) == jnp.float16
assert np.promote_types(np.int32, np.float16) == np.float64
assert jnp.promote_types(jnp.bfloat16, jnp.float16) == jnp.float32
assert mixed.dtype == jnp.result_type(jnp.int32, jnp.float16) == jnp.float16
# endregion

# region step-3
half = jnp.ones(3, dtype=jnp.float16)
plus_python = half + 1.0
plus_numpy = half + np.float32(1)
print("float16 + 1.0 ->", plus_python.dtype, "| float16 + np.float32(1) ->", plus_numpy.dtype)
print("jnp.asarray(1.0) is", repr(jnp.asarray(1.0)))
brain = jnp.array([1.0, 256.0, 70000.0], dtype=jnp.bfloat16)
print("bfloat16:", brain, "| + 1 ->", brain + 1.0, brain.dtype)
assert plus_python.dtype == jnp.float16 and plus_numpy.dtype == jnp.float32
assert jnp.result_type(half, 1.0) == jnp.float16
assert jnp.result_type(half, np.float32(1)) == jnp.float32
assert (brain + 1.0).dtype == jnp.bfloat16
assert float((brain + 1.0)[1]) == 256.0  # 257 is not a bfloat16 number: it rounds to 256
# endregion
print("PASS: arrays-02")
