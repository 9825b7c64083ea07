"""Figure for transforms-02: how far a central difference is from jax.grad, against its step.

For f = sin at x = 1 it computes (f(x + h) - f(x - h)) / 2h in float32 and in float64 for steps
h from 1e-1 down to 1e-7, on CPU, and its distance from jax.grad(f)(x). Writes figure/data.json
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
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("MPLBACKEND", "Agg")

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64 for the second curve; float32 stays float32

import jax.numpy as jnp  # noqa: E402
import jaxlib  # noqa: E402
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = Path(__file__).resolve().parent
STEPS = tuple(10.0 ** -k for k in range(1, 8))
X = 1.0


def errors(dtype: jnp.dtype) -> list[float]:
    x = jnp.asarray(X, dtype)
    exact = jax.grad(jnp.sin)(x)
    out = []
    for step in STEPS:
        h = jnp.asarray(step, dtype)
        estimate = (jnp.sin(x + h) - jnp.sin(x - h)) / (2 * h)
        out.append(float(f"{float(abs(estimate - exact)):.4g}"))
    return out


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
    floor = 1e-17  # a zero error cannot sit on a log axis
    for name, color in (("float32", "#c55a11"), ("float64", "#1f4e79")):
        ax.loglog(data["steps"], [max(e, floor) for e in data["errors"][name]], "o-",
                  color=color, label=name)
    ax.invert_xaxis()
    ax.set_xlabel("step h (smaller to the right)", fontsize=10)
    ax.set_ylabel("|central difference - jax.grad(sin)(1)|", fontsize=10)
    ax.set_title("A central difference is only as good as its step: too large or too small "
                 "loses digits", fontsize=11)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=10)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder for data.json, figure.png")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    data = {"function": "sin", "x": X, "steps": list(STEPS),
            "errors": {"float32": errors(jnp.float32), "float64": errors(jnp.float64)}}
    best32 = min(range(len(STEPS)), key=lambda i: data["errors"]["float32"][i])
    assert 0 < best32 < len(STEPS) - 1, "float32's best step lies between the extremes"
    record = {"schema": 1, "data": data, "provenance": provenance()}
    (args.out / "data.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    draw(data, args.out / "figure.png")
    print(f"wrote {args.out / 'data.json'} and {args.out / 'figure.png'}")


if __name__ == "__main__":
    main()
