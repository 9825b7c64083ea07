"""Figure for arrays-01: what each NumPy <-> JAX conversion does with memory, on CPU.

For six conversions it measures, with real arrays, whether the result shares its source's
buffer, whether the result accepts an in-place write, and whether a write made afterwards (to
the NumPy source once the transfer has finished, or to the NumPy result) changes the JAX
value. Writes figure/data.json (data + provenance) and figure/figure.png next to this script.

    python figure/make_figure.py [--out DIR]      (default DIR: this script's folder)
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import platform
from collections.abc import Callable
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
COLUMNS = ("shares the source's memory", "result accepts writes",
           "a later write changes the JAX value")
TO_JAX: dict[str, Callable] = {"jnp.array(np_x)": jnp.array, "jnp.asarray(np_x)": jnp.asarray,
                               "jax.device_put(np_x)": jax.device_put}
TO_NUMPY: dict[str, Callable] = {"np.asarray(jax_x)": np.asarray, "np.array(jax_x)": np.array,
                                 "jax.device_get(jax_x)": jax.device_get}


def aligned_source() -> np.ndarray:
    """[0, 1, 2, 3] in a 64-byte-aligned buffer, as NumPy's allocator often returns (the
    case in which XLA's CPU client can use host memory without copying)."""
    raw = np.zeros(4 + 16, dtype=np.float32)
    start = (-raw.ctypes.data % 64) // 4
    source = raw[start : start + 4]
    source[:] = np.arange(4, dtype=np.float32)
    return source


def numpy_to_jax(convert: Callable) -> list[bool]:
    source = aligned_source()
    out = convert(source).block_until_ready()  # transfers are asynchronous: let it finish
    shares = out.unsafe_buffer_pointer() == source.ctypes.data
    try:
        out[0] = 99.0
        writable = True
    except TypeError:
        writable = False
    source[0] = 99.0  # write to the NumPy side after the conversion
    return [shares, writable, float(out[0]) == 99.0]


def jax_to_numpy(convert: Callable) -> list[bool]:
    source = jnp.arange(4, dtype=jnp.float32)
    out = convert(source)
    shares = out.ctypes.data == source.unsafe_buffer_pointer()
    writable = bool(out.flags.writeable)
    if writable:
        out[0] = 99.0  # write to the NumPy result
    return [shares, writable, float(source[0]) == 99.0]


def measure() -> dict[str, list[bool]]:
    rows = {name: numpy_to_jax(f) for name, f in TO_JAX.items()}
    rows.update({name: jax_to_numpy(f) for name, f in TO_NUMPY.items()})
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


def draw(rows: dict[str, list[bool]], path: Path) -> None:
    names = list(rows)
    fig, ax = plt.subplots(figsize=(8.4, 5.0), dpi=110)
    ax.imshow([[1 if v else 0 for v in rows[n]] for n in names],
              cmap=plt.matplotlib.colors.ListedColormap(["#f2f2f2", "#4a90c2"]), vmin=0, vmax=1,
              aspect="auto")
    for i, name in enumerate(names):
        for j, value in enumerate(rows[name]):
            ax.text(j, i, "yes" if value else "no", ha="center", va="center", fontsize=12,
                    color="white" if value else "black")
    ax.axhline(2.5, color="black", lw=2)
    labels = ["shares the\nsource's memory", "result accepts\nin-place writes",
              "a later write\nchanges the JAX value"]
    ax.set_xticks(range(len(COLUMNS)), labels, fontsize=10)
    ax.xaxis.tick_top()
    ax.set_yticks(range(len(names)), names, fontsize=11, family="monospace")
    ax.set_ylabel("JAX -> NumPy (below the line)    NumPy -> JAX (above)", fontsize=10)
    ax.set_xlabel("measured on the CPU backend: buffer pointers, a test write, a later write",
                  fontsize=10)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder for data.json, figure.png")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows = measure()
    for values in rows.values():
        assert values[0] or not values[2], "a JAX value changed without shared memory"
    assert not any(rows[name][2] for name in TO_NUMPY), "a NumPy result reached a JAX value"
    assert not rows["jnp.array(np_x)"][2]
    assert rows["np.asarray(jax_x)"][:2] == [True, False]
    assert rows["np.array(jax_x)"][:2] == [False, True]
    data = {"columns": list(COLUMNS), "rows": rows}
    record = {"schema": 1, "data": data, "provenance": provenance()}
    (args.out / "data.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    draw(rows, args.out / "figure.png")
    print(f"wrote {args.out / 'data.json'} and {args.out / 'figure.png'}")


if __name__ == "__main__":
    main()
