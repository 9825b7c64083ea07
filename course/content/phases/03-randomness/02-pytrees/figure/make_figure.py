"""Figure for randomness-02: where the parameters of a small MLP live in its pytree.

A three-layer MLP (2 -> 32 -> 32 -> 2) is initialised from one key as a dict of layers, each a
dict with "w" and "b"; the figure is one bar per leaf, labelled by its path
(jax.tree_util.keystr), with its number of parameters, and the optimizer state optax.adam
builds for the same tree (two moment trees with the same leaves, plus a step count). The numbers
are counts, compared value for value. Writes figure/data.json (data + provenance) and
figure/figure.png next to this script.

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
SIZES = (2, 32, 32, 2)


def init(key: jax.Array) -> dict:
    keys = jax.random.split(key, len(SIZES) - 1)
    return {f"layer{i}": {"w": jax.random.normal(k, (m, n)) / jnp.sqrt(m), "b": jnp.zeros(n)}
            for i, (k, m, n) in enumerate(zip(keys, SIZES[:-1], SIZES[1:], strict=True))}


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
    fig, ax = plt.subplots(figsize=(8.0, 4.2), dpi=110)
    names = [row["path"] for row in data["params"]]
    ax.barh(names, [row["size"] for row in data["params"]], color="#1f4e79")
    for i, row in enumerate(data["params"]):
        ax.text(row["size"], i, f" {row['size']}  {row['shape']}", va="center", fontsize=9)
    ax.invert_yaxis()
    ax.set_xlabel("parameters in the leaf")
    ax.set_xlim(0, max(row["size"] for row in data["params"]) * 1.35)
    ax.set_title(f"MLP {' -> '.join(map(str, SIZES))}: {data['total']} parameters in "
                 f"{len(names)} leaves; adam's state: {data['adam_leaves']} leaves, "
                 f"{data['adam_total']} numbers", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder for data.json, figure.png")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    params = init(jax.random.key(0))
    rows = [{"path": jax.tree_util.keystr(path), "shape": list(leaf.shape), "size": int(leaf.size)}
            for path, leaf in jax.tree_util.tree_leaves_with_path(params)]
    state = optax.adam(1e-3).init(params)
    data = {"sizes": list(SIZES), "params": rows, "total": sum(r["size"] for r in rows),
            "optimizer": "optax.adam",
            "adam_leaves": len(jax.tree.leaves(state)),
            "adam_total": int(sum(x.size for x in jax.tree.leaves(state)))}
    record = {"schema": 1, "data": data, "provenance": provenance()}
    (args.out / "data.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    draw(data, args.out / "figure.png")
    print(f"wrote {args.out / 'data.json'} and {args.out / 'figure.png'}")


if __name__ == "__main__":
    main()
