"""Figure for transforms-03: per-example gradients by a Python loop, by vmap and by hand, timed.

For four batch sizes it computes the gradient of (x_i . w - y_i)^2 for every example three ways
(a Python loop over a jitted jax.grad, jax.jit(jax.vmap(jax.grad)), and the formula
2 (x_i . w - y_i) x_i written for the whole batch, jitted), checks that they agree, and times
each: one warm-up call, then the median of later calls, blocking on the result. The numbers are
measurements: data.json is marked "measured", so `pathways course check` compares only its
structure. Writes figure/data.json (data + provenance) and figure/figure.png next to this script.

    python figure/make_figure.py [--out DIR]      (default DIR: this script's folder)
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import platform
import statistics
import time
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
SIZES = (2, 8, 32, 128)
FEATURES = 8
LATER_CALLS = 7
Batch = Callable[[jax.Array, jax.Array, jax.Array], jax.Array]


def loss_one(w: jax.Array, xi: jax.Array, yi: jax.Array) -> jax.Array:
    return (jnp.dot(xi, w) - yi) ** 2


GRAD_ONE = jax.jit(jax.grad(loss_one))


def with_loop(w: jax.Array, xs: jax.Array, ys: jax.Array) -> jax.Array:
    return jnp.stack([GRAD_ONE(w, xs[i], ys[i]) for i in range(xs.shape[0])])


SERIES: tuple[tuple[str, str, str, Batch], ...] = (
    ("loop", "Python loop over jit(grad), one call per example", "#c55a11", with_loop),
    ("vmap", "jit(vmap(grad)), one call per batch", "#1f4e79",
     jax.jit(jax.vmap(jax.grad(loss_one), in_axes=(None, 0, 0)))),
    ("by_hand", "jit of 2 (x w - y) x written for the batch", "#548235",
     jax.jit(lambda w, xs, ys: 2.0 * (xs @ w - ys)[:, None] * xs)),
)


def later_seconds(fn: Batch, *args: jax.Array) -> float:
    """The median of later calls: the first call (trace and compile) is a warm-up."""
    fn(*args).block_until_ready()
    runs = []
    for _ in range(LATER_CALLS):
        start = time.perf_counter()
        fn(*args).block_until_ready()  # stop the clock when the work is done, not queued
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def measure(size: int) -> dict[str, float]:
    rng = np.random.default_rng(size)
    xs = jnp.asarray(rng.normal(size=(size, FEATURES)), jnp.float32)
    ys = jnp.asarray(rng.normal(size=size), jnp.float32)
    w = jnp.linspace(-1.0, 1.0, FEATURES)
    results = [np.asarray(fn(w, xs, ys)) for *_, fn in SERIES]
    for result in results[1:]:  # the three ways compute the same gradients
        np.testing.assert_allclose(result, results[0], rtol=1e-5, atol=1e-5)
    return {name: later_seconds(fn, w, xs, ys) for name, _, _, fn in SERIES}


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
    fig, ax = plt.subplots(figsize=(8.0, 4.6), dpi=110)
    for name, label, color, _ in SERIES:
        ax.loglog(data["sizes"], [row[name] * 1e3 for row in data["rows"]], "o-", color=color,
                  label=label)
    ax.set_xticks(data["sizes"], [str(n) for n in data["sizes"]])
    ax.minorticks_off()
    ax.set_xlabel(f"examples in the batch ({FEATURES} features each)", fontsize=10)
    ax.set_ylabel(f"milliseconds, median of {LATER_CALLS} later calls", fontsize=10)
    ax.set_title("Per-example gradients: a Python loop grows with the batch, vmap barely does",
                 fontsize=11)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=9)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder for data.json, figure.png")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows = [{k: round(v, 7) for k, v in measure(size).items()} for size in SIZES]
    data = {"function": "grad of (x_i . w - y_i)^2 for every example", "unit": "seconds",
            "sizes": list(SIZES), "features": FEATURES, "later_calls": LATER_CALLS,
            "rows": rows}
    record = {"schema": 1, "measured": True, "data": data, "provenance": provenance()}
    (args.out / "data.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    draw(data, args.out / "figure.png")
    print(f"wrote {args.out / 'data.json'} and {args.out / 'figure.png'}")


if __name__ == "__main__":
    main()
