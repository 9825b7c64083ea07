# A training step is a pure function: (parameters, optimizer state, batch) in, new parameters,
# new state and the loss out. value_and_grad differentiates the loss over the parameter pytree,
# jax.tree.map (or optax) turns gradients into updates, and jax.jit compiles the whole step once.
# region step-1
from functools import partial

import jax
import jax.numpy as jnp
import optax

data_key, init_key = jax.random.split(jax.random.key(0))
x = jax.random.uniform(data_key, (64, 1), minval=-2.0, maxval=2.0)
y = jnp.sin(2.0 * x)  # a curve a small MLP can fit
batch = (x, y)


def init_mlp(key, sizes):
    keys = jax.random.split(key, len(sizes) - 1)
    return [{"w": jax.random.normal(k, (m, n)) / jnp.sqrt(m), "b": jnp.zeros(n)}
            for k, m, n in zip(keys, sizes[:-1], sizes[1:])]


def predict(params, x):
    for layer in params[:-1]:
        x = jnp.tanh(x @ layer["w"] + layer["b"])
    return x @ params[-1]["w"] + params[-1]["b"]


def loss(params, batch):
    x, y = batch
    return jnp.mean((predict(params, x) - y) ** 2)


params = init_mlp(init_key, [1, 16, 1])
value, grads = jax.value_and_grad(loss)(params, batch)
print("loss:", value, "| grads mirror params:", jax.tree.structure(grads) == jax.tree.structure(params))
# endregion

# region step-2
def sgd_step(params, batch, lr=0.1):
    value, grads = jax.value_and_grad(loss)(params, batch)
    return jax.tree.map(lambda p, g: p - lr * g, params, grads), value


p = params
for _ in range(100):
    p, value = sgd_step(p, batch)
print("SGD by hand, 100 steps: loss", loss(params, batch), "->", loss(p, batch))
assert loss(p, batch) < loss(params, batch)
# endregion

# region step-3
optimizer = optax.sgd(0.1)
opt_state = optimizer.init(params)
updates, opt_state = optimizer.update(grads, opt_state, params)
by_optax = optax.apply_updates(params, updates)
by_hand, _ = sgd_step(params, batch)
print("optax.sgd equals the hand-written step:",
      all(jnp.allclose(a, b) for a, b in zip(jax.tree.leaves(by_optax), jax.tree.leaves(by_hand))))

adam = optax.adam(0.05)
adam_state = adam.init(params)  # a pytree: a step count and two trees shaped like params
print("adam's state:", len(jax.tree.leaves(adam_state)), "leaves, moments shaped like params:",
      jax.tree.structure(adam_state[0].mu) == jax.tree.structure(params))
# endregion

# region step-4
@partial(jax.jit, donate_argnums=(0, 1))
def train_step(params, opt_state, batch):
    value, grads = jax.value_and_grad(loss)(params, batch)
    updates, opt_state = adam.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, value


p, s = jax.tree.map(jnp.copy, params), adam.init(params)  # copies: the step donates them
old_leaf = p[0]["w"]
for _ in range(200):
    p, s, value = train_step(p, s, batch)
print("jitted adam, 200 steps: loss", f"{float(value):.5f}", "| compiled", train_step._cache_size(), "time(s)")
print("a donated input is deleted:", old_leaf.is_deleted())
assert train_step._cache_size() == 1 and float(value) < 0.05
# endregion
print("PASS: randomness-03")
