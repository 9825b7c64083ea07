"""Figure for arrays-04: an update returns a new array (original, set, add as three rows).

Computes the three arrays with JAX on CPU, writes data.json (the values and their provenance)
and draws figure.png from that data. Standalone: runs in the learner ZIP too.

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

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = Path(__file__).resolve().parent


def compute() -> dict:
    """The recorded computation: one original array and two updates branching from it."""
    x = jnp.array([1.0, 2.0, 3.0, 4.0])
    y = x.at[1].set(20.0)
    z = x.at[jnp.array([0, 2])].add(5.0)
    return {
        "rows": ["original", "set", "add"],
        "labels": ["x", "x.at[1].set(20.)", "x.at[[0, 2]].add(5.)"],
        "values": [[float(v) for v in row] for row in (x, y, z)],
        "set_index": 1,
        "add_indices": [0, 2],
        "add_value": 5.0,
    }


def provenance() -> dict:
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
    """Three rows of cells; the replaced 20 is the dark cell; every value is written in."""
    values = data["values"]
    fig, ax = plt.subplots(figsize=(6.4, 3.2), dpi=150)
    for row, (label, row_values) in enumerate(zip(data["labels"], values, strict=True)):
        for col, value in enumerate(row_values):
            dark = value == 20.0
            ax.add_patch(plt.Rectangle((col, -row), 0.94, 0.88,
                                       facecolor="#1f3b73" if dark else "#dce6f5",
                                       edgecolor="#4a5a78"))
            ax.text(col + 0.47, -row + 0.44, f"{value:g}", ha="center", va="center",
                    fontsize=13, color="white" if dark else "black")
        ax.text(-0.15, -row + 0.44, label, ha="right", va="center", fontsize=10,
                family="monospace")
    for col in range(len(values[0])):
        ax.text(col + 0.47, 1.1, f"index {col}", ha="center", va="center", fontsize=9)
    ax.set_xlim(-3.2, len(values[0]) + 0.1)
    ax.set_ylim(-len(values) + 0.7, 1.4)
    ax.set_axis_off()
    ax.set_title("An update returns a new array", fontsize=12)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder for data.json, figure.png")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    record = {"schema": 1, "data": compute(), "provenance": provenance()}
    (args.out / "data.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    draw(record["data"], args.out / "figure.png")
    print(f"wrote {args.out / 'data.json'} and {args.out / 'figure.png'}")


if __name__ == "__main__":
    main()
