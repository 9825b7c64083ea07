"""Figure for arrays-03: draws from a reused key versus draws from split keys.

Draws two normal vectors with the same key and two with keys split from it, on CPU, and plots
each pair against each other. Writes figure/data.json (data + provenance) and figure/figure.png
next to this script.

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
SEED = 7
COUNT = 400


def draws() -> dict[str, object]:
    key = jax.random.key(SEED)
    reused = [jax.random.normal(key, (COUNT,)) for _ in range(2)]
    key_a, key_b = jax.random.split(key)
    split = [jax.random.normal(k, (COUNT,)) for k in (key_a, key_b)]

    def corr(pair: list[jax.Array]) -> float:
        return round(float(jnp.corrcoef(pair[0], pair[1])[0, 1]), 4)

    return {
        "seed": SEED, "count": COUNT,
        "reused": [[round(float(v), 5) for v in draw] for draw in reused],
        "split": [[round(float(v), 5) for v in draw] for draw in split],
        "correlation": {"reused": corr(reused), "split": corr(split)},
    }


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
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 4.4), dpi=110, sharex=True, sharey=True)
    panels = (("reused", "same key for both draws", "#c55a11"),
              ("split", "keys from jax.random.split", "#1f4e79"))
    for ax, (name, title, color) in zip(axes, panels, strict=True):
        first, second = data[name]
        ax.scatter(first, second, s=9, alpha=0.6, color=color)
        ax.set_title(f"{title}\ncorrelation {data['correlation'][name]:+.3f}", fontsize=11)
        ax.set_xlabel("first draw: jax.random.normal(key_1, (400,))", fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.set_aspect("equal")
    axes[0].set_ylabel("second draw: jax.random.normal(key_2, (400,))", fontsize=10)
    fig.suptitle("Reusing a key repeats the numbers; splitting gives independent draws",
                 fontsize=12)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder for data.json, figure.png")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    data = draws()
    assert data["reused"][0] == data["reused"][1]
    assert abs(data["correlation"]["split"]) < 0.2
    record = {"schema": 1, "data": data, "provenance": provenance()}
    (args.out / "data.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    draw(data, args.out / "figure.png")
    print(f"wrote {args.out / 'data.json'} and {args.out / 'figure.png'}")


if __name__ == "__main__":
    main()
