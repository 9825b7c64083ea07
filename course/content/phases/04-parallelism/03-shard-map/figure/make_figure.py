"""Figure for parallel-03: the gradient each of 8 devices computes on its block of the batch,
their pmean, and the gradient of the whole batch.

A shard_map returns every device's own gradient (out_specs=P('data')) and, in a second output,
their pmean; jax.grad of the whole batch is computed without any sharding. The numbers are
deterministic float32 results: `pathways course check` compares them with data.json (1e-6
relative). Writes figure/data.json and figure/figure.png next to this script.

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

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("MPLBACKEND", "Agg")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import jaxlib  # noqa: E402
import matplotlib  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = Path(__file__).resolve().parent


def loss(w: jax.Array, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((x @ w - y) ** 2)


def gradients() -> dict:
    mesh = Mesh(np.array(jax.devices()), ("data",))
    xs = jnp.linspace(-1.0, 1.0, 64 * 3).reshape(64, 3)
    ys = jnp.sin(jnp.arange(64.0))
    w = jnp.array([0.5, -1.0, 2.0])

    def one_device(w: jax.Array, x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
        g = jax.grad(loss)(jax.lax.pcast(w, "data", to="varying"), x, y)
        return g[None], jax.lax.pmean(g, "data")

    own, mean = jax.jit(jax.shard_map(one_device, mesh=mesh,
                                      in_specs=(P(), P("data"), P("data")),
                                      out_specs=(P("data"), P())))(w, xs, ys)
    whole = jax.grad(loss)(w, xs, ys)
    np.testing.assert_allclose(np.asarray(mean), np.asarray(whole), rtol=1e-5, atol=1e-6)
    return {"per_device": np.asarray(own).round(6).tolist(),
            "pmean": np.asarray(mean).round(6).tolist(),
            "whole_batch": np.asarray(whole).round(6).tolist()}


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
    own = np.array(data["per_device"])
    fig, ax = plt.subplots(figsize=(8.4, 3.9), dpi=110)
    width = 0.25
    for j, color in enumerate(("#1f4e79", "#c55a11", "#548235")):
        ax.bar(np.arange(8) + (j - 1) * width, own[:, j], width, color=color,
               label=f"component {j} of the device's gradient")
        ax.axhline(data["pmean"][j], color=color, linestyle="--", linewidth=1)
    ax.set_xticks(range(8), [f"CPU {d}" for d in range(8)])
    ax.set_ylabel("gradient on the device's 8 examples", fontsize=10)
    ax.set_title("Each device's gradient differs; dashed: their pmean = the whole batch's",
                 fontsize=11)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder for data.json, figure.png")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    data = {"loss": "mean((x @ w - y) ** 2), 64 examples, 8 a device", **gradients()}
    record = {"schema": 1, "data": data, "provenance": provenance()}
    (args.out / "data.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    draw(data, args.out / "figure.png")
    print(f"wrote {args.out / 'data.json'} and {args.out / 'figure.png'}")


if __name__ == "__main__":
    main()
