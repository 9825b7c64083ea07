"""Figure for arrays-01: how long a jitted matmul call takes to return vs. to finish.

Measures, on the CPU backend, the median time until the call returns (dispatch) and until
block_until_ready returns (result ready) for square matrices of growing size, then writes
figure/data.json (data + provenance) and figure/figure.png next to this script.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import platform
import statistics
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import jaxlib
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = Path(__file__).resolve().parent
SIZES = (128, 256, 512, 1024)
REPEATS = 7


def measure(n: int) -> dict[str, float]:
    """Median dispatch and ready times (milliseconds) for one n x n matmul."""
    square = jax.jit(lambda a: a @ a)
    a = jnp.ones((n, n), dtype=jnp.float32)
    square(a).block_until_ready()  # compile outside the timed region
    dispatch, ready = [], []
    for _ in range(REPEATS):
        start = time.perf_counter()
        out = square(a)
        returned = time.perf_counter()
        out.block_until_ready()
        finished = time.perf_counter()
        dispatch.append((returned - start) * 1e3)
        ready.append((finished - start) * 1e3)
        assert float(out[0, 0]) == float(n)
    return {"n": n, "dispatch_ms": statistics.median(dispatch),
            "ready_ms": statistics.median(ready)}


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


def draw(rows: list[dict[str, float]], path: Path) -> None:
    sizes = [r["n"] for r in rows]
    fig, ax = plt.subplots(figsize=(7.0, 4.2), dpi=110)
    ax.plot(sizes, [r["ready_ms"] for r in rows], "o-", color="#1f4e79", lw=2,
            label="until block_until_ready() returns (result ready)")
    ax.plot(sizes, [r["dispatch_ms"] for r in rows], "s--", color="#c55a11", lw=2,
            label="until the call returns (work queued)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(sizes, [str(n) for n in sizes])
    ax.set_xlabel("matrix size n (n x n float32 matmul, jitted, CPU)", fontsize=11)
    ax.set_ylabel("median wall time (ms, log scale)", fontsize=11)
    ax.set_title("Async dispatch: the call returns before the result exists", fontsize=12)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=10, loc="upper left")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main() -> None:
    rows = [measure(n) for n in SIZES]
    for r in rows:
        assert r["ready_ms"] >= r["dispatch_ms"]
    (HERE / "data.json").write_text(
        json.dumps({"data": {"rows": rows, "repeats": REPEATS}, "provenance": provenance()},
                   indent=2) + "\n")
    draw(rows, HERE / "figure.png")


if __name__ == "__main__":
    main()
