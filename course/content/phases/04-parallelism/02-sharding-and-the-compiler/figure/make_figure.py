"""Figure for parallel-02: the collectives XLA's partitioner inserts for y = x @ w under six
layouts, and the size of what each one produces on a device.

For every layout it compiles the product with jax.jit on 8 logical CPU devices and reads the
compiled program's text (``.lower(...).compile().as_text()``): each collective's name and its
result's shape. The numbers are counts and shapes, exact: `pathways course check` compares them
with data.json. Writes figure/data.json and figure/figure.png next to this script.

    python figure/make_figure.py [--out DIR]      (default DIR: this script's folder)
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import math
import os
import platform
import re
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
COLLECTIVE = re.compile(r"= (\w+)\[([\d,]*)\]\S* (all-reduce|all-gather|reduce-scatter|"
                        r"collective-permute|all-to-all)(?:-start)?\(")
BYTES = {"f32": 4, "bf16": 2, "s32": 4, "f64": 8}
LAYOUTS = (  # name, x's spec, w's spec, y's spec (None: whatever the partitioner picks)
    ("rows split, y split", P("data", None), P(), None),
    ("rows split, y whole", P("data", None), P(), P()),
    ("contraction split, y whole", P(None, "data"), P("data", None), P()),
    ("contraction split, y by rows", P(None, "data"), P("data", None), P("data", None)),
    ("w's columns split, y whole", P(), P(None, "data"), P()),
    ("all whole (replicated)", P(), P(), P()),
)


def compiled(mesh: Mesh, x_spec: P, w_spec: P, y_spec: P | None) -> list[dict]:
    x = jnp.ones((16, 32), jnp.float32)
    w = jnp.ones((32, 8), jnp.float32)
    out = None if y_spec is None else NamedSharding(mesh, y_spec)
    f = jax.jit(lambda x, w: x @ w, in_shardings=(NamedSharding(mesh, x_spec),
                                                  NamedSharding(mesh, w_spec)),
                out_shardings=out)
    found = []
    for dtype, dims, name in COLLECTIVE.findall(f.lower(x, w).compile().as_text()):
        shape = [int(d) for d in dims.split(",") if d]
        found.append({"collective": name, "shape": shape,
                      "bytes": BYTES.get(dtype, 4) * math.prod(shape)})
    return found


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
    colors = {"all-reduce": "#1f4e79", "all-gather": "#c55a11", "reduce-scatter": "#548235",
              "collective-permute": "#7030a0", "all-to-all": "#7f7f7f"}
    fig, ax = plt.subplots(figsize=(8.4, 3.8), dpi=110)
    names = [row["layout"] for row in data["rows"]]
    for i, row in enumerate(data["rows"]):
        left = 0
        for op in row["collectives"]:
            ax.barh(i, op["bytes"], left=left, color=colors[op["collective"]])
            ax.text(left + op["bytes"] / 2, i, f"{op['collective']} {op['shape']}", ha="center",
                    va="center", color="white", fontsize=8)
            left += op["bytes"]
        if not row["collectives"]:
            ax.text(4, i, "no collective: each device computes its own piece", va="center",
                    fontsize=8)
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    ax.set_xlabel("bytes each collective produces on a device (f32)", fontsize=10)
    ax.set_title("What the partitioner inserts for y = x @ w, x (16, 32), w (32, 8), 8 devices",
                 fontsize=11)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder for data.json, figure.png")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    mesh = Mesh(np.array(jax.devices()), ("data",))
    rows = [{"layout": name, "collectives": compiled(mesh, xs, ws, ys)}
            for name, xs, ws, ys in LAYOUTS]
    data = {"product": "x (16, 32) @ w (32, 8), float32", "devices": 8, "rows": rows}
    record = {"schema": 1, "data": data, "provenance": provenance()}
    (args.out / "data.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    draw(data, args.out / "figure.png")
    print(f"wrote {args.out / 'data.json'} and {args.out / 'figure.png'}")


if __name__ == "__main__":
    main()
