"""Figure for arrays-03: draws from a reused key versus draws from split keys.

Draws two normal vectors with the same key and two with keys split from it, on CPU, and plots
each pair against each other. Writes figure/data.json (data + provenance) and figure/figure.png
next to this script.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import platform
from pathlib import Path

import jax
import jax.numpy as jnp
import jaxlib
import matplotlib

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
    fig.savefig(path)
    plt.close(fig)


def main() -> None:
    data = draws()
    assert data["reused"][0] == data["reused"][1]
    assert abs(data["correlation"]["split"]) < 0.2
    (HERE / "data.json").write_text(
        json.dumps({"data": data, "provenance": provenance()}, indent=2) + "\n")
    draw(data, HERE / "figure.png")


if __name__ == "__main__":
    main()
