# jax.numpy arrays vs NumPy: a JAX array is an immutable value that lives on a device and is
# computed asynchronously; NumPy arrays are mutable buffers in host memory.
# region step-1
import jax
import jax.numpy as jnp
import numpy as np

host = np.array([1.0, 2.0, 3.0], dtype=np.float32)
x = jnp.array([1.0, 2.0, 3.0])
print("NumPy:", type(host).__name__, host.dtype, host)
print("JAX:", type(x).__name__, "is jax.Array:", isinstance(x, jax.Array), x.dtype, x)
assert isinstance(x, jax.Array) and not isinstance(x, np.ndarray)
assert x.dtype == jnp.float32 and x.shape == (3,)
# endregion

# region step-2
host[0] = 10.0
try:
    x[0] = 10.0
except TypeError as err:
    message = str(err)
else:
    raise AssertionError("a JAX array accepted item assignment")
y = x.at[0].set(10.0)
print("NumPy after host[0] = 10:", host)
print("JAX x[0] = 10 raised TypeError:", message.split(". ")[0])
print("x:", x, "y:", y)
assert "immutable" in message and ".at[idx].set" in message
assert jnp.array_equal(x, jnp.array([1.0, 2.0, 3.0]))
assert jnp.array_equal(y, jnp.array([10.0, 2.0, 3.0]))
# endregion

# region step-3
cpu = jax.devices("cpu")[0]
placed = jax.device_put(host, cpu)
doubled = placed * 2
doubled.block_until_ready()
back = np.asarray(doubled)
print("x lives on:", x.devices(), "placed lives on:", placed.devices())
print("Doubled (ready):", doubled.is_ready(), doubled)
print("Back to NumPy:", type(back).__name__, back, "writeable:", back.flags.writeable)
assert placed.devices() == {cpu} and placed.committed
assert isinstance(back, np.ndarray) and not back.flags.writeable
assert np.array_equal(back, np.array([20.0, 4.0, 6.0], dtype=np.float32))
# endregion
print("PASS: arrays-01")
