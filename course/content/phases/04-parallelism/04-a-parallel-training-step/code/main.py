# A data- and model-parallel training step: a 2-D mesh (data, model), the batch split along
# 'data', the hidden layer split along 'model', one jitted SGD step written with jax.tree.map,
# equal to the single-device step; then what moves between devices, counted in the program.
# region step-1
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")  # before JAX

import re

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))
key = jax.random.key(0)
k1, k2, k3 = jax.random.split(key, 3)
params = {"w1": jax.random.normal(k1, (4, 16)) / 2.0, "w2": jax.random.normal(k2, (16, 1)) / 4.0}
x = jax.random.normal(k3, (32, 4))
y = jnp.sin(x.sum(axis=1, keepdims=True))
layout = {"w1": P(None, "model"), "w2": P("model", None)}  # the hidden units split in two
param_shardings = {k: NamedSharding(mesh, spec) for k, spec in layout.items()}
batch_sharding = NamedSharding(mesh, P("data", None))  # the examples split in four
sharded = jax.device_put(params, param_shardings)
xb, yb = jax.device_put(x, batch_sharding), jax.device_put(y, batch_sharding)
print("mesh:", dict(mesh.shape), "| w1 shard", sharded["w1"].sharding.shard_shape((4, 16)),
      "| w2 shard", sharded["w2"].sharding.shard_shape((16, 1)), "| x shard",
      xb.sharding.shard_shape(x.shape))
# endregion

# region step-2
def loss(params, x, y):
    h = jnp.tanh(x @ params["w1"])
    return jnp.mean((h @ params["w2"] - y) ** 2)


def sgd_step(params, x, y, lr=0.1):
    value, grads = jax.value_and_grad(loss)(params, x, y)
    return jax.tree.map(lambda p, g: p - lr * g, params, grads), value


parallel_step = jax.jit(sgd_step, in_shardings=(param_shardings, batch_sharding, batch_sharding),
                        out_shardings=(param_shardings, NamedSharding(mesh, P())))
single_step = jax.jit(sgd_step)
p_par, p_one = sharded, params
for _ in range(3):
    p_par, loss_par = parallel_step(p_par, xb, yb)
    p_one, loss_one = single_step(p_one, x, y)
print("losses after 3 steps, 8 devices and 1:", float(loss_par), float(loss_one))
same = all(bool(jnp.allclose(a, b, rtol=1e-5, atol=1e-6))
           for a, b in zip(jax.tree.leaves(p_par), jax.tree.leaves(p_one), strict=True))
print("same parameters:", same, "| w1 keeps its layout:", p_par["w1"].sharding.spec)
assert same and p_par["w1"].sharding.spec == P(None, "model")
# endregion

# region step-3
text = parallel_step.lower(sharded, xb, yb).compile().as_text()
moved = []
for line in text.splitlines():
    if " = " in line and " all-reduce(" in line:
        result = line.split(" = ", 1)[1].split(" all-reduce(")[0]  # one shape, or a tuple
        shapes = [tuple(int(d) for d in dims.split(",") if d)
                  for dims in re.findall(r"f32\[([\d,]*)\]", result)]
        groups, size = re.search(r"replica_groups=\[(\d+),(\d+)\]", line).groups()
        moved.append((f"{groups} groups of {size}", shapes))
for across, shapes in moved:
    print(f"all-reduce in {across} devices:", shapes, "|", 4 * sum(int(np.prod(s)) for s in shapes),
          "bytes a device")
assert sorted(a for a, _ in moved) == ["2 groups of 4", "4 groups of 2"]
# endregion

print("PASS: parallel-04")
