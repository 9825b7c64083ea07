# max-score: 6
# why: one permutation from the key for every epoch (fold_in skipped): every epoch sees the same batches

"""Train a small MLP from scratch on two interleaved spirals: reference implementation
(instructor reference execution only).

Everything is a pure function of explicit values: data and initial parameters come from keys,
the parameters and the optimizer state are pytrees, one jitted step updates them, the loop
shuffles each epoch with its own key, and a checkpoint holds everything the next epoch reads.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax

BATCH = 32
LR = 0.03
optimizer = optax.adam(LR)


def make_spirals(key: jax.Array, n: int) -> tuple[jax.Array, jax.Array]:
    """Given: n points of two interleaved spirals, labels 0 and 1 (float32 (n, 2), int32 (n,))."""
    k_label, k_radius, k_noise = jax.random.split(key, 3)
    label = jax.random.bernoulli(k_label, 0.5, (n,)).astype(jnp.int32)
    r = jax.random.uniform(k_radius, (n,), minval=0.1, maxval=1.0)
    angle = 3.0 * jnp.pi * r + jnp.pi * label
    x = jnp.stack([r * jnp.cos(angle), r * jnp.sin(angle)], axis=1)
    return x + 0.03 * jax.random.normal(k_noise, (n, 2)), label


def predict(params: list, x: jax.Array) -> jax.Array:
    """Given: logits of the MLP, tanh hidden layers. The grader may replace it, and
    model_params, with a model of its own: every stage must work on any parameter pytree."""
    *hidden, last = params
    for layer in hidden:
        x = jnp.tanh(x @ layer["w"] + layer["b"])
    return x @ last["w"] + last["b"]


# --- Stage 1: initialisation from a key --------------------------------------------------
def init_params(key: jax.Array, sizes: tuple[int, ...]) -> list[dict[str, jax.Array]]:
    """One {"w", "b"} per layer: w ~ normal * sqrt(1 / fan_in) from split keys, b zeros."""
    keys = jax.random.split(key, len(sizes) - 1)
    return [{"w": jax.random.normal(k, (m, n)) * jnp.sqrt(1.0 / m), "b": jnp.zeros(n)}
            for k, m, n in zip(keys, sizes[:-1], sizes[1:], strict=True)]


def model_params(key: jax.Array, hidden: int) -> object:
    """Given: the parameters the stages train (the grader may replace this)."""
    return init_params(key, (2, hidden, hidden, 2))


# --- Stage 2: the loss --------------------------------------------------------------------
def loss_fn(params: object, x: jax.Array, y: jax.Array) -> jax.Array:
    """Mean softmax cross-entropy of predict(params, x) against integer labels y."""
    return optax.softmax_cross_entropy_with_integer_labels(predict(params, x), y).mean()


# --- Stage 3: the jitted step -------------------------------------------------------------
@jax.jit
def train_step(params: object, opt_state: object, x: jax.Array,
               y: jax.Array) -> tuple[object, object, jax.Array]:
    """One Adam step on any parameter pytree: (new params, new state, loss before the step)."""
    value, grads = jax.value_and_grad(loss_fn)(params, x, y)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, value


# --- Stage 4: the loop --------------------------------------------------------------------
def train(params: object, opt_state: object, key: jax.Array, x: jax.Array, y: jax.Array,
          epochs: int, start_epoch: int = 0) -> tuple[object, object, jax.Array]:
    """Epochs start_epoch .. start_epoch + epochs - 1: batches of BATCH from
    permutation(fold_in(key, epoch), n), the partial batch dropped. Returns the parameters,
    the state and each epoch's mean training loss (an array: no float() per step)."""
    n = x.shape[0]
    means = []
    for epoch in range(start_epoch, start_epoch + epochs):
        perm = jax.random.permutation(key, n)
        losses = []
        for idx in perm[: n // BATCH * BATCH].reshape(-1, BATCH):
            params, opt_state, value = train_step(params, opt_state, x[idx], y[idx])
            losses.append(value)
        means.append(jnp.mean(jnp.stack(losses)))
    return params, opt_state, jnp.stack(means)


# --- Stage 5: checkpoint and exact resumption ---------------------------------------------
def save_checkpoint(path: Path, state: dict) -> None:
    """Every leaf of state (params, opt_state, epoch, key) to an .npz; the typed key as its
    uint32 words."""
    state = dict(state, key=jax.random.key_data(state["key"]))
    np.savez(path, *[np.asarray(leaf) for leaf in jax.tree.leaves(state)])


def load_checkpoint(path: Path, template: dict) -> dict:
    """The state saved at path, in the structure of template (built like the saved state)."""
    stored = dict(template, key=jax.random.key_data(template["key"]))
    with np.load(path) as files:
        leaves = [jnp.asarray(files[f"arr_{i}"]) for i in range(len(files.files))]
    state = jax.tree.unflatten(jax.tree.structure(stored), leaves)
    return dict(state, key=jax.random.wrap_key_data(state["key"]))


# --- Given: the entry points run.py and the grader call (arrays in, arrays out) ----------
def start_state(seed: int, hidden: int) -> dict:
    init_key, shuffle_key = jax.random.split(jax.random.key(seed))
    params = model_params(init_key, hidden)
    return {"params": params, "opt_state": optimizer.init(params), "epoch": jnp.array(0),
            "key": shuffle_key}


def stage1_init(seed: int, hidden: int) -> tuple:
    return tuple(jax.tree.leaves(init_params(jax.random.key(seed), (2, hidden, hidden, 2))))


def stage2_loss(seed: int, hidden: int, x: jax.Array, y: jax.Array) -> jax.Array:
    return loss_fn(start_state(seed, hidden)["params"], x, y)


def stage3_steps(seed: int, hidden: int, x: jax.Array, y: jax.Array, steps: int) -> tuple:
    state = start_state(seed, hidden)
    params, opt_state, losses = state["params"], state["opt_state"], []
    for _ in range(steps):
        params, opt_state, value = train_step(params, opt_state, x[:BATCH], y[:BATCH])
        losses.append(value)
    return (*jax.tree.leaves(params), jnp.stack(losses))


def stage4_train(seed: int, hidden: int, x: jax.Array, y: jax.Array, epochs: int) -> tuple:
    state = start_state(seed, hidden)
    params, _, losses = train(state["params"], state["opt_state"], state["key"], x, y, epochs)
    return (*jax.tree.leaves(params), losses)


def stage5_resume(seed: int, hidden: int, x: jax.Array, y: jax.Array, epochs: int,
                  stop_at: int) -> tuple:
    """Train stop_at epochs, checkpoint, restore into a fresh template, train the rest: the
    result must equal stage4_train's bit for bit."""
    template = start_state(seed, hidden)
    s = template
    params, opt_state, first = train(s["params"], s["opt_state"], s["key"], x, y, stop_at)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "checkpoint.npz"
        save_checkpoint(path, dict(s, params=params, opt_state=opt_state,
                                   epoch=jnp.array(stop_at)))
        s = load_checkpoint(path, template)
    params, _, rest = train(s["params"], s["opt_state"], s["key"], x, y, epochs - stop_at,
                            int(s["epoch"]))
    return (*jax.tree.leaves(params), jnp.concatenate([first, rest]))
