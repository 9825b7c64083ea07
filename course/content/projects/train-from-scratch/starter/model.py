"""Train a small MLP from scratch on two interleaved spirals: your implementation (the
learner's workspace).

Everything is a pure function of explicit values: data and initial parameters come from keys,
the parameters and the optimizer state are pytrees, one jitted step updates them, the loop
shuffles each epoch with its own key, and a checkpoint holds everything the next epoch reads.

Fill in the TODOs, then run, from the folder that holds projects/:
    python projects/train-from-scratch/run.py --implementation starter --stage 1
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
    raise NotImplementedError("TODO 1 (init_params): split key into len(sizes) - 1 keys; layer i gets w = jax.random.normal(keys[i], (m, n)) * jnp.sqrt(1.0 / m) and b = jnp.zeros(n)")


def model_params(key: jax.Array, hidden: int) -> object:
    """Given: the parameters the stages train (the grader may replace this)."""
    return init_params(key, (2, hidden, hidden, 2))


# --- Stage 2: the loss --------------------------------------------------------------------
def loss_fn(params: object, x: jax.Array, y: jax.Array) -> jax.Array:
    """Mean softmax cross-entropy of predict(params, x) against integer labels y."""
    raise NotImplementedError("TODO 2 (loss_fn): the mean of optax.softmax_cross_entropy_with_integer_labels(predict(params, x), y)")


# --- Stage 3: the jitted step -------------------------------------------------------------
def train_step(params: object, opt_state: object, x: jax.Array,
               y: jax.Array) -> tuple[object, object, jax.Array]:
    """One Adam step on any parameter pytree: (new params, new state, loss before the step).
    Compile it with @jax.jit, here, once."""
    raise NotImplementedError("TODO 3 (train_step): jax.value_and_grad(loss_fn), optimizer.update, optax.apply_updates; decorate train_step with @jax.jit")


# --- Stage 4: the loop --------------------------------------------------------------------
def train(params: object, opt_state: object, key: jax.Array, x: jax.Array, y: jax.Array,
          epochs: int, start_epoch: int = 0) -> tuple[object, object, jax.Array]:
    """Epochs start_epoch .. start_epoch + epochs - 1: batches of BATCH from
    permutation(fold_in(key, epoch), n), the partial batch dropped. Returns the parameters,
    the state and each epoch's mean training loss (an array: no float() per step)."""
    raise NotImplementedError("TODO 4 (train): for each epoch, perm = jax.random.permutation(jax.random.fold_in(key, epoch), n); call train_step on each full batch of BATCH indices; keep each epoch's mean loss as an array")


# --- Stage 5: checkpoint and exact resumption ---------------------------------------------
def save_checkpoint(path: Path, state: dict) -> None:
    """Every leaf of state (params, opt_state, epoch, key) to an .npz; the typed key as its
    uint32 words."""
    raise NotImplementedError("TODO 5a (save_checkpoint): replace the typed key by jax.random.key_data(key), then np.savez(path, *leaves)")


def load_checkpoint(path: Path, template: dict) -> dict:
    """The state saved at path, in the structure of template (built like the saved state)."""
    raise NotImplementedError("TODO 5b (load_checkpoint): read the leaves in order, jax.tree.unflatten them with the structure of template (its key as key_data), and jax.random.wrap_key_data the key")


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
