"""Figure for transforms-01: what the first call of a jitted function costs, measured on CPU.

For four input sizes it times, with block_until_ready, tracing alone (jit(f).trace(v)),
lowering (traced.lower(); jit(f).lower(v) does both), compiling (lowered.compile()), a fresh
jitted function's first call (trace + lower + compile + run) and the median of its later calls
(run only). The numbers are measurements: data.json is marked
"measured", so `pathways course check` compares only its structure. Writes figure/data.json
(data + provenance) and figure/figure.png next to this script.

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

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = Path(__file__).resolve().parent
SIZES = (1_000, 10_000, 100_000, 1_000_000)
LATER_CALLS = 7
SERIES = (("trace", "trace: jit(f).trace(v)", "#8fbbd9"),
          ("lower", "lower: traced.lower()", "#7f7f7f"),
          ("compile", "compile: lowered.compile()", "#1f4e79"),
          ("first_call", "first call (trace + lower + compile + run)", "#c55a11"),
          ("later_call", f"later call, median of {LATER_CALLS} (run only)", "#548235"))


def fresh_energy() -> Callable[[jax.Array], jax.Array]:
    """A new function object each time, so no jit cache of an earlier measurement applies."""

    def energy(v: jax.Array) -> jax.Array:
        return jnp.sum(jnp.tanh(v) ** 2)

    return energy


def seconds(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    out = action()
    if isinstance(out, jax.Array):
        out.block_until_ready()  # stop the clock when the work is done, not when it is queued
    return time.perf_counter() - start


def measure(size: int) -> dict[str, float]:
    v = jnp.linspace(-3.0, 3.0, size).block_until_ready()
    fresh = jax.jit(fresh_energy())
    first = seconds(lambda: fresh(v))
    later = statistics.median(seconds(lambda: fresh(v)) for _ in range(LATER_CALLS))
    holder: dict[str, object] = {}
    trace = seconds(lambda: holder.setdefault("traced", jax.jit(fresh_energy()).trace(v)))
    traced = holder["traced"]
    lower = seconds(lambda: holder.setdefault("lowered", traced.lower()))  # type: ignore[attr-defined]
    lowered = holder["lowered"]
    compile_s = seconds(lambda: holder.setdefault("compiled",
                                                  lowered.compile()))  # type: ignore[attr-defined]
    result = float(holder["compiled"](v))  # type: ignore[operator]
    assert abs(result - float(fresh(v))) <= 1e-4 * max(1.0, abs(result))
    return {"trace": trace, "lower": lower, "compile": compile_s, "first_call": first,
            "later_call": later}


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
    fig, ax = plt.subplots(figsize=(9.0, 5.4), dpi=110)
    width = 0.16
    for index, (name, label, color) in enumerate(SERIES):
        positions = [i + (index - 2) * width for i in range(len(data["sizes"]))]
        ax.bar(positions, [row[name] * 1e3 for row in data["rows"]], width, label=label,
               color=color)
    ax.set_yscale("log")
    ax.set_xticks(range(len(data["sizes"])), [f"{n:,}" for n in data["sizes"]])
    ax.set_xlabel("elements in v (float32); f(v) = sum(tanh(v) ** 2)", fontsize=10)
    ax.set_ylabel("milliseconds (log scale)", fontsize=10)
    ax.set_title("The first call pays for tracing and compiling; later calls only run",
                 fontsize=12)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=9, ncols=3, loc="upper center", bbox_to_anchor=(0.5, -0.14))
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder for data.json, figure.png")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows = [{k: round(v, 7) for k, v in measure(size).items()} for size in SIZES]
    data = {"function": "sum(tanh(v) ** 2)", "unit": "seconds", "sizes": list(SIZES),
            "later_calls": LATER_CALLS, "rows": rows}
    record = {"schema": 1, "measured": True, "data": data, "provenance": provenance()}
    (args.out / "data.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    draw(data, args.out / "figure.png")
    print(f"wrote {args.out / 'data.json'} and {args.out / 'figure.png'}")


if __name__ == "__main__":
    main()
