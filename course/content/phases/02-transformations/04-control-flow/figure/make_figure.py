"""Figure for transforms-04: how many fixed loop steps a differentiable Newton square root needs.

For a = 2, 50 and 1000 it runs Newton's method y <- (y + a / y) / 2 from y = a with lax.scan,
on CPU in float32, and takes the derivative of every iterate with respect to a by reverse mode
through the scan (jax.jacrev). It plots the relative error of the value and of the derivative
against the number of steps, next to the step at which a lax.while_loop with the lesson's
stopping rule (|y * y - a| <= 1e-6 a) stops; that loop cannot be differentiated in reverse
mode. Writes figure/data.json (data + provenance) and figure/figure.png next to this script.

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
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("MPLBACKEND", "Agg")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import jaxlib  # noqa: E402
import matplotlib  # noqa: E402
from jax import lax  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = Path(__file__).resolve().parent
INPUTS = (2.0, 50.0, 1000.0)
STEPS = 12  # the lesson's sqrt_fixed_steps
TOLERANCE = 1e-6  # the lesson's sqrt_until_close
FLOOR = 1e-9  # a zero error cannot sit on a log axis


def trajectory(a: jax.Array) -> jax.Array:
    """y_1 .. y_STEPS of Newton's method for sqrt(a), from y_0 = a."""

    def newton(y: jax.Array, _: None) -> tuple[jax.Array, jax.Array]:
        y = 0.5 * (y + a / y)
        return y, y

    _, ys = lax.scan(newton, a, None, length=STEPS)
    return jnp.concatenate([a[None], ys])


def while_loop_steps(a: jax.Array) -> int:
    """How many steps the lesson's while_loop runs before its stopping rule holds."""

    def not_close(state: tuple[jax.Array, jax.Array]) -> jax.Array:
        y, _ = state
        return jnp.abs(y * y - a) > TOLERANCE * a

    def newton(state: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
        y, count = state
        return 0.5 * (y + a / y), count + 1

    return int(lax.while_loop(not_close, newton, (a, jnp.int32(0)))[1])


def relative_errors(values: jax.Array, exact: float) -> list[float]:
    return [float(f"{abs(float(v) - exact) / exact:.4g}") for v in values]


def series(a_value: float) -> dict[str, object]:
    a = jnp.float32(a_value)
    values = trajectory(a)
    slopes = jax.jacrev(trajectory)(a)  # d y_n / d a for every n, backwards through the scan
    return {"a": a_value, "while_loop_steps": while_loop_steps(a),
            "value_error": relative_errors(values, math.sqrt(a_value)),
            "slope_error": relative_errors(slopes, 0.5 / math.sqrt(a_value))}


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
    fig, ax = plt.subplots(figsize=(8.0, 5.4), dpi=110)
    steps = list(range(STEPS + 1))
    for row, color in zip(data["series"], ("#1f4e79", "#c55a11", "#548235"), strict=True):
        label = f"a = {row['a']:g}"
        ax.semilogy(steps, [max(e, FLOOR) for e in row["value_error"]], "o-", color=color,
                    label=f"{label}: value")
        ax.semilogy(steps, [max(e, FLOOR) for e in row["slope_error"]], "s--", color=color,
                    label=f"{label}: derivative (dashed)")
        ax.axvline(row["while_loop_steps"], color=color, alpha=0.35, linewidth=4)
    ax.set_xlabel("Newton steps in a fixed-length loop (shaded: where the while_loop stops)",
                  fontsize=10)
    ax.set_ylabel("relative error of y_n and of dy_n/da (by grad)", fontsize=9)
    ax.set_title("A bounded loop with enough steps gives the value and its derivative",
                 fontsize=11)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, ncols=3, loc="upper center", bbox_to_anchor=(0.5, -0.13))
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder for data.json, figure.png")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    data = {"method": "newton sqrt, y0 = a, float32", "steps": STEPS,
            "tolerance": TOLERANCE, "series": [series(a) for a in INPUTS]}
    for row in data["series"]:
        assert row["while_loop_steps"] <= STEPS, "the fixed loop covers the while_loop's steps"
        assert row["value_error"][-1] < 1e-6 and row["slope_error"][-1] < 1e-5
    record = {"schema": 1, "data": data, "provenance": provenance()}
    (args.out / "data.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    draw(data, args.out / "figure.png")
    print(f"wrote {args.out / 'data.json'} and {args.out / 'figure.png'}")


if __name__ == "__main__":
    main()
