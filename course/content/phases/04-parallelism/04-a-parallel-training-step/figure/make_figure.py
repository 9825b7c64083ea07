"""Figure for parallel-04: what one SGD step of a two-layer model moves between 8 devices, for
each shape of a (data, model) mesh.

For every mesh shape it compiles the step (the batch split along 'data', the hidden units along
'model') and reads every all-reduce of the compiled program: the size of the group of devices
it combines and the bytes it produces on a device. The numbers are exact: `pathways course
check` compares them with data.json. Writes figure/data.json and figure/figure.png here.

    python figure/make_figure.py [--out DIR]      (default DIR: this script's folder)
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
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
SHAPES = ((8, 1), (4, 2), (2, 4), (1, 8))


def loss(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    h = jnp.tanh(x @ params["w1"])
    return jnp.mean((h @ params["w2"] - y) ** 2)


def sgd_step(params: dict, x: jax.Array, y: jax.Array) -> tuple[dict, jax.Array]:
    value, grads = jax.value_and_grad(loss)(params, x, y)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads), value


def moved(data: int, model: int) -> list[dict]:
    mesh = Mesh(np.array(jax.devices()).reshape(data, model), ("data", "model"))
    shardings = {"w1": NamedSharding(mesh, P(None, "model")),
                 "w2": NamedSharding(mesh, P("model", None))}
    rows = NamedSharding(mesh, P("data", None))
    step = jax.jit(sgd_step, in_shardings=(shardings, rows, rows),
                   out_shardings=(shardings, NamedSharding(mesh, P())))
    params = {"w1": jnp.ones((4, 16)), "w2": jnp.ones((16, 1))}
    text = step.lower(params, jnp.ones((32, 4)), jnp.ones((32, 1))).compile().as_text()
    found = []
    for line in text.splitlines():
        if " = " in line and " all-reduce(" in line:
            result = line.split(" = ", 1)[1].split(" all-reduce(")[0]
            shapes = [[int(d) for d in dims.split(",") if d]
                      for dims in re.findall(r"f32\[([\d,]*)\]", result)]
            match = re.search(r"replica_groups=\[(\d+),(\d+)\]", line)
            size = int(match.group(2)) if match else 8
            found.append({"group": size, "bytes": 4 * sum(int(np.prod(s)) for s in shapes)})
    return sorted(found, key=lambda f: (f["group"], f["bytes"]))


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
    fig, ax = plt.subplots(figsize=(8.4, 3.9), dpi=110)
    labels = [f"data {r['data']} x model {r['model']}" for r in data["rows"]]
    for i, row in enumerate(data["rows"]):
        over_model = sum(m["bytes"] for m in row["all_reduces"] if m["group"] == row["model"]
                         and row["model"] > 1)
        over_data = sum(m["bytes"] for m in row["all_reduces"]) - over_model
        ax.bar(i - 0.2, over_data, 0.4, color="#1f4e79",
               label="gradients and loss, added across the data replicas" if i == 0 else None)
        ax.bar(i + 0.2, over_model, 0.4, color="#c55a11",
               label="activations, added over 'model'" if i == 0 else None)
        ax.text(i - 0.2, over_data, str(over_data), ha="center", va="bottom", fontsize=8)
        ax.text(i + 0.2, over_model, str(over_model), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(len(labels)), labels)
    ax.set_ylabel("bytes all-reduces produce on a device", fontsize=10)
    ax.set_title("One SGD step of a 4-16-1 model, batch 32: what crosses devices per mesh shape",
                 fontsize=11)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder for data.json, figure.png")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows = [{"data": d, "model": m, "all_reduces": moved(d, m)} for d, m in SHAPES]
    data = {"model": "tanh(x @ w1) @ w2, w1 (4, 16), w2 (16, 1), batch 32, float32",
            "devices": 8, "rows": rows}
    record = {"schema": 1, "data": data, "provenance": provenance()}
    (args.out / "data.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    draw(data, args.out / "figure.png")
    print(f"wrote {args.out / 'data.json'} and {args.out / 'figure.png'}")


if __name__ == "__main__":
    main()
