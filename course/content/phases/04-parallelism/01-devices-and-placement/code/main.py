# Devices and placement: eight logical CPU devices, where an array lives, committed and
# uncommitted arrays, and an array split over a mesh of devices with a NamedSharding.
# region step-1
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")  # before JAX

import jax
import jax.numpy as jnp

devices = jax.devices()
print("devices:", len(devices), "| platform:", devices[0].platform, "| ids:",
      [d.id for d in devices])
print("processes:", jax.process_count(), "| local devices:", jax.local_device_count())
assert len(devices) == 8 and jax.process_count() == 1
# endregion

# region step-2
x = jnp.arange(8.0)
print("a new array: committed", x.committed, "| on device", [d.id for d in x.devices()])
y = jax.device_put(x, devices[3])
print("device_put to device 3: committed", y.committed, "| on device",
      [d.id for d in y.devices()])
print("uncommitted + committed runs on device", [d.id for d in (x + y).devices()])
z = jax.device_put(x, devices[5])
try:
    y + z
except ValueError as err:
    print("committed to 3 and to 5:", type(err).__name__, "- incompatible devices:",
          "incompatible devices" in str(err))
assert not x.committed and y.committed and (x + y).devices() == {devices[3]}
# endregion

# region step-3
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(devices), ("data",))
table = jnp.arange(32.0).reshape(8, 4)
rows = jax.device_put(table, NamedSharding(mesh, P("data")))
print("P('data'): shard shape", rows.sharding.shard_shape(rows.shape), "| device 2 holds",
      rows.addressable_shards[2].data)
try:
    jax.device_put(table, NamedSharding(mesh, P(None, "data")))
except ValueError as err:
    print("P(None, 'data') on 4 columns:", type(err).__name__, "- 8 devices cannot split 4")
wide = jax.device_put(jnp.ones((2, 16)), NamedSharding(mesh, P(None, "data")))
print("P(None, 'data') on a (2, 16) array: shard shape", wide.sharding.shard_shape(wide.shape))
same = jax.device_put(table, NamedSharding(mesh, P()))
print("P(): every device holds", same.sharding.shard_shape(same.shape), "| replicated:",
      same.sharding.is_fully_replicated)
print("the values never change:", bool(jnp.array_equal(rows, table))
      and bool(jnp.array_equal(same, table)))
assert rows.sharding.shard_shape(rows.shape) == (1, 4)
# endregion

print("PASS: parallel-01")
