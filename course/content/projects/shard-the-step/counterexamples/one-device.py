# max-score: 7
# why: the single-device step everywhere: the right numbers, nothing split, no collective
"""shard-the-step: a training step run data-parallel on 8 logical devices (reference)."""

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
    return x


# Stage 2
def _step(w, b, x, y, lr):
    value, grads = jax.value_and_grad(loss)((w, b), x, y)
    w, b = sgd((w, b), grads, lr)
    return w, b, value


sharded_step = jax.jit(_step)


# Stage 3: a trajectory, the same as one device's within float32 rounding.
def train(w, b, x, y, lr, steps):
    losses = []
    for _ in range(steps):
        w, b, value = sharded_step(w, b, x, y, lr)
        losses.append(value)
    return w, b, jnp.stack(losses)


# Stage 5
def shard_map_step(w, b, x, y, lr):
    return sharded_step(w, b, x, y, lr)
