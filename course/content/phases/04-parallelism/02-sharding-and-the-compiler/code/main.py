# Sharding arrays and letting the compiler partition: jit keeps the inputs' layouts, in_shardings
# and out_shardings fix them, with_sharding_constraint pins one inside, and the compiled program
# shows the collectives XLA's partitioner inserted to make the layouts meet.
# region step-1
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")  # before JAX

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ("data",))
x = jax.device_put(jnp.arange(16 * 32, dtype=jnp.float32).reshape(16, 32) / 100.0,
                   NamedSharding(mesh, P("data")))
w = jnp.linspace(-1.0, 1.0, 32 * 8, dtype=jnp.float32).reshape(32, 8)
y = jax.jit(lambda x, w: x @ w)(x, w)
print("x split by rows:", x.sharding.spec, "| y = x @ w comes out", y.sharding.spec,
      "| shard", y.sharding.shard_shape(y.shape))
assert y.sharding.spec == P("data") and bool(jnp.allclose(y, np.asarray(x) @ np.asarray(w),
                                                             rtol=1e-5, atol=1e-4))
# endregion

# region step-2
COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "collective-permute", "all-to-all")


def collectives(f, *args):
    """How many of each collective the compiled program of jax.jit(f) holds."""
    text = jax.jit(f).lower(*args).compile().as_text()
    rights = [line.split(" = ", 1)[1] for line in text.splitlines() if " = " in line]
    # "%y = f32[16,8] all-reduce(%x), ...": the op's name, then "(" (an operand is "%all-...")
    return {c: n for c in COLLECTIVES
            if (n := sum(f" {c}(" in r or f" {c}-start(" in r for r in rights))}


print("x @ w, rows split:", collectives(lambda x, w: x @ w, x, w))
print("(x @ w).sum(0), a sum over the split rows:", collectives(lambda x, w: (x @ w).sum(0), x, w))
everywhere = jax.jit(lambda x, w: x @ w, out_shardings=NamedSharding(mesh, P()))
print("out_shardings=P(), the whole y on every device:", everywhere(x, w).sharding.spec,
      collectives(everywhere, x, w))
assert collectives(lambda x, w: x @ w, x, w) == {}
# endregion

# region step-3
cols = jax.jit(lambda x: x, out_shardings=NamedSharding(mesh, P(None, "data")))(x)
split_k = jax.jit(lambda x, w: x @ w, in_shardings=(NamedSharding(mesh, P(None, "data")),
                                                   NamedSharding(mesh, P("data", None))))
print("x split by columns, w by rows, the contraction split:", collectives(split_k, cols, w),
      "| y", split_k(cols, w).sharding.spec)


def pinned(x, w):
    h = jax.lax.with_sharding_constraint(x @ w, NamedSharding(mesh, P()))
    return jnp.tanh(h)


print("with_sharding_constraint(h, P()) inside:", collectives(pinned, x, w))
same = [bool(jnp.allclose(f, y, rtol=1e-5, atol=1e-4)) for f in (everywhere(x, w),
                                                                  split_k(cols, w))]
print("every layout computes the same y:", all(same))
assert collectives(split_k, cols, w) == {"all-reduce": 1} and all(same)
# endregion

print("PASS: parallel-02")
