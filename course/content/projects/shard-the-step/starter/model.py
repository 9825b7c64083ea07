"""shard-the-step: a training step run data-parallel on 8 logical devices.

Fill in every TODO; run `python run.py --implementation starter --stage N` for N = 1..5.
"""

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")  # before JAX

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

MESH = Mesh(np.array(jax.devices()), ("data",))
ROWS = NamedSharding(MESH, P("data"))
WHOLE = NamedSharding(MESH, P())


def predict(w, b, x):
    return x @ w + b


def loss(params, x, y):
    w, b = params
    return jnp.mean((predict(w, b, x) - y) ** 2)


def sgd(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)


# Stage 1: the batch split along 'data'.
def shard_batch(x):
    raise NotImplementedError("stage 1")  # TODO: x placed with its first dimension on 'data'


# Stage 2: the sharded step: parameters whole on every device, the batch split. jit's
# in_shardings place uncommitted inputs; out_shardings keep the parameters whole.
def _step(w, b, x, y, lr):
    value, grads = jax.value_and_grad(loss)((w, b), x, y)
    w, b = sgd((w, b), grads, lr)
    return w, b, value


def sharded_step(w, b, x, y, lr):
    raise NotImplementedError("stage 2")  # TODO: jax.jit(_step) with in/out_shardings


# Stage 3: a trajectory, the same as one device's within float32 rounding.
def train(w, b, x, y, lr, steps):
    raise NotImplementedError("stage 3")  # TODO: `steps` sharded steps; return w, b, losses


# Stage 5: the same step written per device with shard_map, averaging gradients with pmean.
def shard_map_step(w, b, x, y, lr):
    raise NotImplementedError("stage 5")  # TODO: shard_map a per-device step; pmean grads
