"""Figure for parallel-01: the bytes each of 8 logical devices holds for one (8, 4) float32
table under five placements.

Each placement is made with jax.device_put and read back from the array's addressable shards
(``shard.device``, ``shard.data.nbytes``), so the figure shows what JAX placed, not what a
formula predicts. The numbers are exact counts: `pathways course check` compares them with
data.json. Writes figure/data.json (data + provenance) and figure/figure.png next to this script.

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
from jax.sharding import Mesh, NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = Path(__file__).resolve().parent


def placements() -> list[tuple[str, object]]:
    devices = jax.devices()
    line = Mesh(np.array(devices), ("data",))
    grid = Mesh(np.array(devices).reshape(4, 2), ("data", "model"))
    return [
        ("jnp.arange (uncommitted)", None),
        ("device_put(x, devices[3])", devices[3]),
        ("P('data') on 8", NamedSharding(line, P("data"))),
        ("P() on 8 (replicated)", NamedSharding(line, P())),
        ("P('data', 'model') on 4x2", NamedSharding(grid, P("data", "model"))),
        ("P('data') on 4x2", NamedSharding(grid, P("data"))),
    ]


def held(where: object) -> list[int]:
    table = jnp.arange(32.0).reshape(8, 4)
    array = table if where is None else jax.device_put(table, where)
    counts = [0] * jax.device_count()
    for shard in array.addressable_shards:
        counts[shard.device.id] += int(shard.data.nbytes)
    return counts


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
    grid = np.array([row["bytes"] for row in data["rows"]], float)
    fig, ax = plt.subplots(figsize=(8.4, 3.9), dpi=110)
    ax.imshow(grid, cmap="Blues", vmin=0, vmax=grid.max() * 1.3, aspect="auto")
    for (i, j), value in np.ndenumerate(grid):
        ax.text(j, i, f"{int(value)}", ha="center", va="center", fontsize=9)
    ax.set_xticks(range(grid.shape[1]), [f"CPU {d}" for d in range(grid.shape[1])])
    ax.set_yticks(range(grid.shape[0]),
                  [f"{r['placement']}  (sum {sum(r['bytes'])})" for r in data["rows"]])
    ax.set_title("Bytes each logical device holds of one (8, 4) float32 table (128 bytes)",
                 fontsize=11)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder for data.json, figure.png")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows = [{"placement": name, "bytes": held(where)} for name, where in placements()]
    data = {"array": "jnp.arange(32.0).reshape(8, 4), float32, 128 bytes", "devices": 8,
            "rows": rows}
    record = {"schema": 1, "data": data, "provenance": provenance()}
    (args.out / "data.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    draw(data, args.out / "figure.png")
    print(f"wrote {args.out / 'data.json'} and {args.out / 'figure.png'}")


if __name__ == "__main__":
    main()
