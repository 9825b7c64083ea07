# Pure functions and explicit inputs: jit traces a function once per input signature, so
# anything it reads besides its arguments (globals, hidden random state, side effects) is frozen
# into the trace. Pass every input explicitly: values, PRNG keys, and debug output.
# region step-1
import jax
import jax.numpy as jnp

scale = 2.0


@jax.jit
def scale_by_global(x):
    return x * scale  # reads a global: its value is baked in when the function is traced


@jax.jit
def scale_by(x, factor):
    return x * factor  # every input is an argument


x = jnp.array([1.0, 2.0, 3.0])
first = scale_by_global(x)
scale = 10.0
stale = scale_by_global(x)  # same shapes and dtypes: the cached trace (scale = 2.0) runs
fresh = scale_by(x, scale)
print("global read under jit, scale=2:", first, "| after scale=10:", stale)
print("explicit factor=10:", fresh)
assert jnp.array_equal(stale, jnp.array([2.0, 4.0, 6.0]))
assert jnp.array_equal(fresh, jnp.array([10.0, 20.0, 30.0]))
# endregion

# region step-2
key = jax.random.key(0)
same_a = jax.random.normal(key, (3,))
same_b = jax.random.normal(key, (3,))
key, subkey = jax.random.split(key)
new = jax.random.normal(subkey, (3,))
legacy = jax.random.PRNGKey(0)
print("typed key:", key.dtype, key.shape, "| legacy PRNGKey:", legacy.dtype, legacy.shape)
print("same key twice equal:", bool(jnp.array_equal(same_a, same_b)), same_a)
print("split subkey:", new)
assert jnp.array_equal(same_a, same_b)
assert not jnp.array_equal(new, same_a)
assert jnp.array_equal(jax.random.normal(legacy, (3,)), same_a)
# endregion

# region step-3
traces = []


@jax.jit
def noisy_double(v):
    traces.append(v.shape)  # a Python side effect: runs only while tracing
    print("  print (trace time): v is a tracer:", isinstance(v, jax.core.Tracer))
    jax.debug.print("  jax.debug.print (every call): v = {}", v)
    return 2 * v


for value in (1.0, 2.0, 3.0):
    doubled = noisy_double(jnp.array(value))
    jax.effects_barrier()  # wait for the debug output before printing more
print("calls: 3 | traces:", len(traces), "| last result:", doubled)
assert len(traces) == 1
assert float(doubled) == 6.0
# endregion
print("PASS: arrays-03")
