"""Figure for randomness-01: what a reused key does to "independent" draws.

Eight noise vectors of 2000 normal numbers are drawn twice on CPU: once with eight keys from
jax.random.split (the right way), once with one key reused for all eight (the bug). The
figure shows the 8 x 8 correlation matrix of each set. The numbers are a pure function of the
keys, so data.json is compared value for value. Writes figure/data.json (data + provenance)
and figure/figure.png next to this script.

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
import numpy as np  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = Path(__file__).resolve().parent
DRAWS, LENGTH, SEED = 8, 2000, 0


def correlations(keys: jax.Array) -> list[list[float]]:
    draws = jax.vmap(lambda k: jax.random.normal(k, (LENGTH,)))(keys)
    return np.round(np.corrcoef(np.asarray(draws, np.float64)), 4).tolist()


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
    fig, axes = plt.subplots(1, 2, figsize=(8.4, 4.0), dpi=110)
    for ax, name, title in ((axes[0], "split", "8 keys from split: near 0 off the diagonal"),
                            (axes[1], "reused", "1 key reused 8 times: all 1")):
        image = ax.imshow(np.array(data[name]), vmin=-1.0, vmax=1.0, cmap="RdBu_r")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("draw")
        ax.set_ylabel("draw")
    fig.colorbar(image, ax=axes, shrink=0.8, label="correlation")
    fig.suptitle(f"Correlation of 8 noise vectors ({LENGTH} normal numbers each)", fontsize=11)
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder for data.json, figure.png")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    key = jax.random.key(SEED)
    split = correlations(jax.random.split(key, DRAWS))
    reused = correlations(jnp.stack([key] * DRAWS))
    off = [abs(split[i][j]) for i in range(DRAWS) for j in range(DRAWS) if i != j]
    data = {"draws": DRAWS, "length": LENGTH, "seed": SEED, "split": split, "reused": reused,
            "split_max_abs_off_diagonal": round(max(off), 4)}
    record = {"schema": 1, "data": data, "provenance": provenance()}
    (args.out / "data.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    draw(data, args.out / "figure.png")
    print(f"wrote {args.out / 'data.json'} and {args.out / 'figure.png'}")


if __name__ == "__main__":
    main()
