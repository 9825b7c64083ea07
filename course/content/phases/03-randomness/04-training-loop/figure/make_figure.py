"""Figure for randomness-04: a resumed run on top of the straight one.

The lesson's classifier (2 -> 16 -> 2, Adam 0.02, batches of 32 from a key-shuffled
permutation per epoch) is trained for 10 epochs three times from the same seed: straight;
stopped after epoch 4, checkpointed (params, optimizer state, epoch, key) and resumed; and
resumed from a checkpoint that forgot Adam's state. The validation loss after every epoch is
recorded. Writes figure/data.json (data + provenance) and figure/figure.png next to this
script.

    python figure/make_figure.py [--out DIR]      (default DIR: this script's folder)
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import platform
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("MPLBACKEND", "Agg")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import jaxlib  # noqa: E402
import matplotlib  # noqa: E402
import optax  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = Path(__file__).resolve().parent
EPOCHS, STOP, BATCH = 10, 4, 32
OPT = optax.adam(0.02)


def problem() -> tuple[jax.Array, ...]:
    data_key = jax.random.split(jax.random.key(0), 3)[0]
    labels = jax.random.bernoulli(data_key, 0.5, (320,)).astype(jnp.int32)
    centers = jnp.array([[-1.0, 0.0], [1.0, 0.0]])
    points = centers[labels] + 0.9 * jax.random.normal(jax.random.fold_in(data_key, 1), (320, 2))
    return points[:256], labels[:256], points[256:], labels[256:]


def init_params(key: jax.Array) -> dict:
    k1, k2 = jax.random.split(key)
    return {"hidden": {"w": jax.random.normal(k1, (2, 16)) / jnp.sqrt(2.0), "b": jnp.zeros(16)},
            "out": {"w": jax.random.normal(k2, (16, 2)) / 4.0, "b": jnp.zeros(2)}}


def loss(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    h = jnp.tanh(x @ params["hidden"]["w"] + params["hidden"]["b"])
    out = h @ params["out"]["w"] + params["out"]["b"]
    return optax.softmax_cross_entropy_with_integer_labels(out, y).mean()


@jax.jit
def train_step(params: dict, opt_state: object, x: jax.Array, y: jax.Array) -> tuple:
    grads = jax.grad(loss)(params, x, y)
    updates, opt_state = OPT.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state


def epoch(state: dict, train: tuple[jax.Array, jax.Array]) -> dict:
    x, y = train
    perm = jax.random.permutation(jax.random.fold_in(state["key"], state["epoch"]), x.shape[0])
    params, opt_state = state["params"], state["opt_state"]
    for idx in perm[: x.shape[0] // BATCH * BATCH].reshape(-1, BATCH):
        params, opt_state = train_step(params, opt_state, x[idx], y[idx])
    return dict(state, params=params, opt_state=opt_state, epoch=state["epoch"] + 1)


def run(start: dict, data: tuple, restore: object = None) -> list[float]:
    train_x, train_y, val_x, val_y = data
    state, losses = start, []
    for e in range(EPOCHS):
        if e == STOP and restore is not None:
            state = restore(state)
        state = epoch(state, (train_x, train_y))
        losses.append(round(float(loss(state["params"], val_x, val_y)), 7))
    return losses


def provenance() -> dict[str, object]:
    return {
        "timestamp": datetime.datetime.now(datetime.UTC).isoformat(),
        "python": platform.python_version(),
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
        "backend": jax.default_backend(),
        "device_count": jax.device_count(),
        "source_sha256": hashlib.sha256(Path(__file__).read_bytes()).hexdigest(),
    }


def draw(data: dict, path: Path) -> None:
    fig, ax = plt.subplots(figsize=(8.0, 4.4), dpi=110)
    epochs = list(range(1, EPOCHS + 1))
    ax.plot(epochs, data["straight"], color="#1f4e79", linewidth=5, alpha=0.4,
            label="straight, 10 epochs")
    ax.plot(epochs, data["resumed"], "o--", color="#1f4e79",
            label=f"stopped after epoch {STOP}, resumed from the full checkpoint")
    ax.plot(epochs, data["forgot_optimizer"], "s:", color="#c55a11",
            label="resumed with Adam's state reset")
    ax.axvline(STOP + 0.5, color="grey", linewidth=0.8)
    ax.set_xlabel("epoch")
    ax.set_ylabel("validation cross-entropy after the epoch")
    ax.set_title("A full checkpoint resumes on the straight trajectory; a partial one does not",
                 fontsize=11)
    ax.legend(fontsize=9)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder for data.json, figure.png")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    _, init_key, shuffle_key = jax.random.split(jax.random.key(0), 3)
    params = init_params(init_key)
    start = {"params": params, "opt_state": OPT.init(params), "epoch": jnp.array(0),
             "key": shuffle_key}
    data = problem()

    def full(state: dict) -> dict:  # what a save and a restore give back: copies of every leaf
        copied = dict(state, key=jax.random.key_data(state["key"]))
        copied = jax.tree.map(lambda leaf: jnp.asarray(jax.device_get(leaf)), copied)
        return dict(copied, key=jax.random.wrap_key_data(copied["key"]))

    straight = run(start, data)
    resumed = run(start, data, full)
    forgot = run(start, data, lambda s: dict(full(s), opt_state=OPT.init(s["params"])))
    record = {"schema": 1, "data": {"epochs": EPOCHS, "stop_after": STOP, "straight": straight,
                                    "resumed": resumed, "forgot_optimizer": forgot,
                                    "resumed_equals_straight": resumed == straight},
              "provenance": provenance()}
    (args.out / "data.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    draw(record["data"], args.out / "figure.png")
    print(f"wrote {args.out / 'data.json'} and {args.out / 'figure.png'}")


if __name__ == "__main__":
    main()
