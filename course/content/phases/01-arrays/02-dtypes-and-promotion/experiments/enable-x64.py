# Experiment — Turn on 64-bit types in a fresh process: jax_enable_x64 must be set before any
# array is made, so the safe place is the first lines of a program (here, a child interpreter).
import os
import subprocess
import sys
import warnings

X64_FIRST = """
import jax
jax.config.update("jax_enable_x64", True)   # first, before any array exists
import jax.numpy as jnp
print("child defaults:", jnp.array(1.0).dtype, jnp.arange(3).dtype)
print("child promote uint32 with int32:", jnp.promote_types(jnp.uint32, jnp.int32))
print("child float32 array + 1.0:", (jnp.ones(2, dtype=jnp.float32) + 1.0).dtype)
"""
FLAG_TOO_LATE = """
import jax, jax.numpy as jnp
early = jnp.array([0.1])                     # made while x64 is off
jax.config.update("jax_enable_x64", True)
late = jnp.array([0.1])
print("made before the flag:", early.dtype, "| after:", late.dtype,
      "| mixed:", (early + late).dtype)
"""
FROM_ENVIRONMENT = """
import jax.numpy as jnp
print("child with JAX_ENABLE_X64=1:", jnp.array(1.0).dtype)
"""
env = {**os.environ, "JAX_PLATFORMS": "cpu"}
runs = ((X64_FIRST, env), (FLAG_TOO_LATE, env), (FROM_ENVIRONMENT, {**env, "JAX_ENABLE_X64": "1"}))
for program, child_env in runs:
    child = subprocess.run([sys.executable, "-c", program], env=child_env, capture_output=True,
                           text=True, timeout=120, check=True)
    print(child.stdout, end="")
    assert "float64" in child.stdout

# In this process the flag is still off: asking for float64 is truncated, with a warning.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    truncated = jnp.array([1.0], dtype=jnp.float64)
print("parent: dtype=float64 gives", truncated.dtype, "| warned:", len(caught) == 1)
print("parent promote uint32 with int32:", jnp.promote_types(jnp.uint32, jnp.int32))
assert truncated.dtype == jnp.float32 and caught[0].category is UserWarning
assert "jax_enable_x64" in str(caught[0].message)
assert not jax.config.jax_enable_x64
