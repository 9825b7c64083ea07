"""Figure for randomness-03: one jitted step function, three optimizers.

The lesson's MLP (1 -> 16 -> 1, tanh) is trained for 300 steps on 64 points of sin(2x), from
the same key and initial parameters, with a jitted step each time: SGD written with
jax.tree.map (lr 0.1), optax.sgd (lr 0.1) and optax.adam (lr 0.05). The loss before every step
is recorded. Writes figure/data.json (data + provenance) and figure/figure.png next to this
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
from collections.abc import Callable
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
STEPS, SIZES = 300, (1, 16, 1)


def init_mlp(key: jax.Array, sizes: tuple[int, ...]) -> list[dict[str, jax.Array]]:
    keys = jax.random.split(key, len(sizes) - 1)
    return [{"w": jax.random.normal(k, (m, n)) / jnp.sqrt(m), "b": jnp.zeros(n)}
            for k, m, n in zip(keys, sizes[:-1], sizes[1:], strict=True)]


def loss(params: list, batch: tuple[jax.Array, jax.Array]) -> jax.Array:
    x, y = batch
    for layer in params[:-1]:
        x = jnp.tanh(x @ layer["w"] + layer["b"])
    return jnp.mean((x @ params[-1]["w"] + params[-1]["b"] - y) ** 2)


def train(step: Callable, params: list, state: object, batch: tuple) -> list[float]:
    losses = []
    for _ in range(STEPS):
        params, state, value = step(params, state, batch)
        losses.append(value)
    return [round(float(v), 7) for v in jnp.stack(losses)]


def optax_step(opt: optax.GradientTransformation) -> Callable:
    @jax.jit
    def step(params: list, state: object, batch: tuple) -> tuple:
        value, grads = jax.value_and_grad(loss)(params, batch)
        updates, state = opt.update(grads, state, params)
        return optax.apply_updates(params, updates), state, value

    return step


@jax.jit
def hand_step(params: list, state: None, batch: tuple) -> tuple:
    value, grads = jax.value_and_grad(loss)(params, batch)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads), state, value


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
    steps = list(range(STEPS))
    ax.semilogy(steps, data["hand_sgd"], color="#c55a11", linewidth=4, alpha=0.5,
                label="SGD by hand (tree.map), lr 0.1")
    ax.semilogy(steps, data["optax_sgd"], color="#1f4e79", linestyle="--",
                label="optax.sgd, lr 0.1")
    ax.semilogy(steps, data["optax_adam"], color="#548235", label="optax.adam, lr 0.05")
    ax.set_xlabel("step (jitted)")
    ax.set_ylabel("mean squared error before the step")
    ax.set_title("MLP 1 -> 16 -> 1 on sin(2x): the same step function, three optimizers",
                 fontsize=11)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder for data.json, figure.png")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    data_key, init_key = jax.random.split(jax.random.key(0))
    x = jax.random.uniform(data_key, (64, 1), minval=-2.0, maxval=2.0)
    batch = (x, jnp.sin(2.0 * x))
    params = init_mlp(init_key, SIZES)
    sgd, adam = optax.sgd(0.1), optax.adam(0.05)
    data = {"steps": STEPS, "sizes": list(SIZES), "data": "64 points of sin(2x), x ~ U(-2, 2)",
            "hand_sgd": train(hand_step, params, None, batch),
            "optax_sgd": train(optax_step(sgd), params, sgd.init(params), batch),
            "optax_adam": train(optax_step(adam), params, adam.init(params), batch)}
    record = {"schema": 1, "data": data, "provenance": provenance()}
    (args.out / "data.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    draw(data, args.out / "figure.png")
    print(f"wrote {args.out / 'data.json'} and {args.out / 'figure.png'}")


if __name__ == "__main__":
    main()
