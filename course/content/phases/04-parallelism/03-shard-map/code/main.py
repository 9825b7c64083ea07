# shard_map: write the program one device runs, on its own block, and the collectives between
# devices yourself: psum, pmean, all_gather, ppermute; then data-parallel gradient averaging by
# hand, equal to the gradient of the whole batch and to what the partitioner does on its own.
# region step-1
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")  # before JAX

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ("data",))
x = jnp.arange(16.0)


def block_view(b):
    """Runs on every device with that device's block of x: shape (2,), not (16,)."""
    me = jax.lax.axis_index("data")
    return jnp.stack([me.astype(jnp.float32), b.shape[0] * 1.0, b.sum()])[None]


views = jax.shard_map(block_view, mesh=mesh, in_specs=P("data"), out_specs=P("data"))(x)
print("device, block length, block sum:", views[:3].tolist(), "...")
total = jax.shard_map(lambda b: jax.lax.psum(b.sum(), "data"), mesh=mesh, in_specs=P("data"),
                      out_specs=P())(x)
print("psum of the block sums:", total, "| x.sum():", x.sum())
assert views.shape == (8, 3) and float(total) == float(x.sum()) == 120.0
# endregion

# region step-2
def on_blocks(f, out_specs=P("data")):
    return jax.shard_map(f, mesh=mesh, in_specs=P("data"), out_specs=out_specs)


print("pmean of the blocks:", on_blocks(lambda b: jax.lax.pmean(b, "data"), P())(x))
gathered = on_blocks(lambda b: jax.lax.all_gather(b, "data", tiled=True))(x)
print("all_gather: every device holds all", gathered.shape[0] // 8, "values; device 3's copy:",
      gathered[3 * 16:3 * 16 + 4], "...")
ring = [(i, (i + 1) % 8) for i in range(8)]
shifted = on_blocks(lambda b: jax.lax.ppermute(b, "data", perm=ring))(x)
print("ppermute to the next device:", shifted)
assert bool(jnp.array_equal(shifted, jnp.roll(x, 2)))
# endregion

# region step-3
def loss(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


def per_device_grad(w, x, y):
    w = jax.lax.pcast(w, "data", to="varying")  # this device's own gradient, not summed yet
    return jax.lax.pmean(jax.grad(loss)(w, x, y), "data")  # mean of 8 equal-size shard means


data_parallel = jax.jit(jax.shard_map(per_device_grad, mesh=mesh,
                                      in_specs=(P(), P("data"), P("data")), out_specs=P()))
xs = jnp.linspace(-1.0, 1.0, 64 * 3).reshape(64, 3)
ys = jnp.sin(jnp.arange(64.0))
w = jnp.array([0.5, -1.0, 2.0])
by_hand = data_parallel(w, xs, ys)
whole = jax.grad(loss)(w, xs, ys)
sharded = NamedSharding(mesh, P("data"))
automatic = jax.jit(jax.grad(loss))(w, jax.device_put(xs, sharded), jax.device_put(ys, sharded))
print("by hand (shard_map + pmean):", by_hand, "| layout", by_hand.sharding.spec)
print("equals the whole batch's gradient and the partitioner's:",
      bool(jnp.allclose(by_hand, whole, rtol=1e-5, atol=1e-6)),
      bool(jnp.allclose(by_hand, automatic, rtol=1e-5, atol=1e-6)))
assert bool(jnp.allclose(by_hand, whole, rtol=1e-5, atol=1e-6))
# endregion

print("PASS: parallel-03")
