# max-score: 8
# why: the linear model's gradient derived by hand: wrong for the model drawn at grading time
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
    return jax.device_put(x, ROWS)


# Stage 2: the sharded step: parameters whole on every device, the batch split. jit's
# in_shardings place uncommitted inputs; out_shardings keep the parameters whole.
def _step(w, b, x, y, lr):
    r = 2.0 * (x @ w + b - y) / y.shape[0]  # the linear model's gradient, derived by hand
    value, grads = loss((w, b), x, y), (x.T @ r, r.sum())
    w, b = sgd((w, b), grads, lr)
    return w, b, value


sharded_step = jax.jit(_step, in_shardings=(WHOLE, WHOLE, ROWS, ROWS, WHOLE),
                       out_shardings=(WHOLE, WHOLE, WHOLE))


# Stage 3: a trajectory, the same as one device's within float32 rounding.
def train(w, b, x, y, lr, steps):
    losses = []
    for _ in range(steps):
        w, b, value = sharded_step(w, b, x, y, lr)
        losses.append(value)
    return w, b, jnp.stack(losses)


# Stage 5: the same step written per device with shard_map, averaging gradients with pmean.
def shard_map_step(w, b, x, y, lr):
    def one_device(params, x, y):
        mine = jax.tree.map(lambda p: jax.lax.pcast(p, "data", to="varying"), params)
        value, grads = jax.value_and_grad(loss)(mine, x, y)
        grads, value = jax.lax.pmean((grads, value), "data")
        return sgd(params, grads, lr), value

    step = jax.shard_map(one_device, mesh=MESH, in_specs=(P(), P("data"), P("data")),
                         out_specs=(P(), P()))
    (w, b), value = jax.jit(step)((w, b), x, y)
    return w, b, value
