"""Figure for arrays-02: JAX's promotion table, computed by adding real JAX values on CPU.

Each cell is the dtype of ``a + b`` for one operand of the row's type and one of the column's
type; "weak" operands are Python scalars. Writes figure/data.json (data + provenance) and
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

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402

HERE = Path(__file__).resolve().parent
SHORT = {"bool": "b1", "uint8": "u8", "int8": "i8", "int16": "i16", "int32": "i32",
         "bfloat16": "bf16", "float16": "f16", "float32": "f32"}
OPERANDS: dict[str, object] = {
    "bool": jnp.zeros((), dtype=jnp.bool_),
    "uint8": jnp.zeros((), dtype=jnp.uint8),
    "int8": jnp.zeros((), dtype=jnp.int8),
    "int32": jnp.zeros((), dtype=jnp.int32),
    "bfloat16": jnp.zeros((), dtype=jnp.bfloat16),
    "float16": jnp.zeros((), dtype=jnp.float16),
    "float32": jnp.zeros((), dtype=jnp.float32),
    "Python int (weak)": 0,
    "Python float (weak)": 0.0,
}
ORDER = ["b1", "u8", "i8", "i16", "i32", "i*", "bf16", "f16", "f32", "f*"]


def label(value: object) -> str:
    """Short name of a result: its dtype, with * when JAX marks it weakly typed."""
    dtype, weak = jax.dtypes.result_type(value, return_weak_type_flag=True)
    name = SHORT[jnp.dtype(dtype).name]
    return name[0] + "*" if weak else name


def table() -> list[list[str]]:
    names = list(OPERANDS)
    rows = []
    for a in names:
        row = []
        for b in names:
            result = jnp.add(OPERANDS[a], OPERANDS[b])
            row.append(label(result))
        rows.append(row)
    return rows


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


def draw(rows: list[list[str]], path: Path) -> None:
    names = list(OPERANDS)
    codes = [[ORDER.index(cell) for cell in row] for row in rows]
    colors = ["#d9d9d9", "#c6dbef", "#9ecae1", "#6baed6", "#3182bd", "#deebf7",
              "#fdd0a2", "#fdae6b", "#e6550d", "#fee6ce"]
    fig, ax = plt.subplots(figsize=(8.6, 7.0), dpi=110)
    ax.imshow(codes, cmap=ListedColormap(colors), vmin=-0.5, vmax=len(ORDER) - 0.5)
    for i, row in enumerate(rows):
        for j, cell in enumerate(row):
            ax.text(j, i, cell, ha="center", va="center", fontsize=11,
                    color="white" if cell in ("i32", "f32") else "black")
    ax.set_xticks(range(len(names)), names, rotation=40, ha="right", fontsize=10)
    ax.set_yticks(range(len(names)), names, fontsize=10)
    ax.set_xlabel("dtype of b", fontsize=11)
    ax.set_ylabel("dtype of a", fontsize=11)
    ax.set_title("dtype of a + b in JAX (x64 off); * marks a weakly typed result", fontsize=12)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder for data.json, figure.png")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows = table()
    names = list(OPERANDS)
    assert rows[names.index("float16")][names.index("Python float (weak)")] == "f16"
    assert rows[names.index("bfloat16")][names.index("float16")] == "f32"
    assert rows[names.index("int32")][names.index("float16")] == "f16"
    data = {"operands": names, "result": rows,
            "legend": "b1 bool, u uint, i int, bf16 bfloat16, f float; * = weakly typed"}
    record = {"schema": 1, "data": data, "provenance": provenance()}
    (args.out / "data.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    draw(rows, args.out / "figure.png")
    print(f"wrote {args.out / 'data.json'} and {args.out / 'figure.png'}")


if __name__ == "__main__":
    main()
