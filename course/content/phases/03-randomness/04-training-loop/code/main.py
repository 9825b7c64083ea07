# The training loop around a pure step: batches from a key-shuffled permutation, epochs whose
# keys come from fold_in, metrics kept as arrays, evaluation outside the step, early stopping,
# and a checkpoint of everything the next step reads, so a resumed run follows the straight one.
# region step-1
import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax

data_key, init_key, shuffle_key = jax.random.split(jax.random.key(0), 3)
labels = jax.random.bernoulli(data_key, 0.5, (320,)).astype(jnp.int32)
centers = jnp.array([[-1.0, 0.0], [1.0, 0.0]])
points = centers[labels] + 0.9 * jax.random.normal(jax.random.fold_in(data_key, 1), (320, 2))
train_x, train_y, val_x, val_y = points[:256], labels[:256], points[256:], labels[256:]
BATCH = 32


def epoch_batches(key, epoch, n):
    """Indices of every full batch of one epoch: a permutation drawn from the epoch's key."""
    perm = jax.random.permutation(jax.random.fold_in(key, epoch), n)
    return perm[: n // BATCH * BATCH].reshape(-1, BATCH)


order = epoch_batches(shuffle_key, 0, 256)
print("epoch 0:", order.shape, "batches; first indices", order[0, :4],
      "| every example once:", bool(jnp.array_equal(jnp.sort(order.ravel()), jnp.arange(256))))
# endregion

# region step-2
def init_params(key):
    k1, k2 = jax.random.split(key)
    return {"hidden": {"w": jax.random.normal(k1, (2, 16)) / jnp.sqrt(2.0), "b": jnp.zeros(16)},
            "out": {"w": jax.random.normal(k2, (16, 2)) / 4.0, "b": jnp.zeros(2)}}


def logits(params, x):
    h = jnp.tanh(x @ params["hidden"]["w"] + params["hidden"]["b"])
    return h @ params["out"]["w"] + params["out"]["b"]


def loss(params, x, y):
    return optax.softmax_cross_entropy_with_integer_labels(logits(params, x), y).mean()


optimizer = optax.adam(0.02)


@jax.jit
def train_step(params, opt_state, x, y):
    value, grads = jax.value_and_grad(loss)(params, x, y)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, value  # metrics stay arrays


@jax.jit
def evaluate(params, x, y):  # outside the step: no gradient, no update
    return loss(params, x, y), jnp.mean(jnp.argmax(logits(params, x), -1) == y)


def run_epoch(params, opt_state, key, epoch):
    losses = []
    for idx in epoch_batches(key, epoch, 256):
        params, opt_state, value = train_step(params, opt_state, train_x[idx], train_y[idx])
        losses.append(value)  # no float() here: it would wait for every step
    return params, opt_state, jnp.mean(jnp.stack(losses))


params = init_params(init_key)
opt_state = optimizer.init(params)
for epoch in range(3):
    params, opt_state, train_loss = run_epoch(params, opt_state, shuffle_key, epoch)
    val_loss, val_acc = evaluate(params, val_x, val_y)
    print(f"epoch {epoch}: train loss {float(train_loss):.4f} | val loss {float(val_loss):.4f} "
          f"| val accuracy {float(val_acc):.3f}")
print("train_step compiled", train_step._cache_size(), "time(s) for", 3 * 8, "steps")
# endregion

# region step-3
def train(params, opt_state, max_epochs=30, patience=3):
    best, best_params, waited = jnp.inf, params, 0
    for epoch in range(max_epochs):
        params, opt_state, _ = run_epoch(params, opt_state, shuffle_key, epoch)
        val_loss = float(evaluate(params, val_x, val_y)[0])  # one sync per epoch, not per step
        if val_loss < best - 1e-4:
            best, best_params, waited = val_loss, params, 0
        else:
            waited += 1
            if waited == patience:
                return best_params, best, epoch
    return best_params, best, max_epochs - 1


best_params, best_loss, stopped = train(init_params(init_key), optimizer.init(params))
print(f"early stopping: stopped after epoch {stopped}, best val loss {best_loss:.4f}")
# endregion

# region step-4
def save(path, state):
    state = dict(state, key=jax.random.key_data(state["key"]))  # a typed key as its uint32 words
    np.savez(path, *[np.asarray(leaf) for leaf in jax.tree.leaves(state)])


def restore(path, template):
    stored = dict(template, key=jax.random.key_data(template["key"]))
    with np.load(path) as files:
        leaves = [jnp.asarray(files[f"arr_{i}"]) for i in range(len(files.files))]
    state = jax.tree.unflatten(jax.tree.structure(stored), leaves)
    return dict(state, key=jax.random.wrap_key_data(state["key"]))


def advance(state, epochs):
    for _ in range(epochs):
        params, opt_state, _ = run_epoch(state["params"], state["opt_state"], state["key"],
                                         int(state["epoch"]))
        state = dict(state, params=params, opt_state=opt_state, epoch=state["epoch"] + 1)
    return state


start = {"params": init_params(init_key), "opt_state": optimizer.init(params),
         "epoch": jnp.array(0), "key": shuffle_key}
straight = advance(start, 4)
with tempfile.TemporaryDirectory() as folder:
    save(Path(folder) / "ckpt.npz", advance(start, 2))  # stop after 2 epochs ...
    resumed = advance(restore(Path(folder) / "ckpt.npz", start), 2)  # ... restore, 2 more
same = all(jnp.array_equal(a, b) for a, b in zip(jax.tree.leaves(straight["params"]),
                                                jax.tree.leaves(resumed["params"])))
print("resumed after epoch 2 equals the straight run, bit for bit:", same)
assert same and int(resumed["epoch"]) == 4
# endregion
print("PASS: randomness-04")
