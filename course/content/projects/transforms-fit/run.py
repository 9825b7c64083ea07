"""Run the transforms-fit project stages against the starter or the reference solution.

    python projects/transforms-fit/run.py --implementation starter --stage 1
    python projects/transforms-fit/run.py --implementation starter --stage 5 \
        --evidence-dir runs/transforms-fit

Stage 1: the loss as a pure function (plain-Python reference, same inputs give the same value).
Stage 2: the gradient against central finite differences of your own loss.
Stage 3: a jitted training step that returns new parameters and lowers the loss.
Stage 4: per-example gradients with vmap (each row is a one-example gradient; their mean is
the batch gradient).
Stage 5: evidence (stages 1-4, a short fit, evidence.json + figure.png in --evidence-dir, then
the evidence read back and checked).

Exit status: 0 every check passed, 1 a check failed, 2 the implementation stopped at a TODO.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import platform
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

import jax
import jax.numpy as jnp
import numpy as np

HERE = Path(__file__).resolve().parent
PROJECT_ID = "project.transforms-fit"
SEED = 0
EXAMPLES, FEATURES = 32, 3
TRUE_W, TRUE_B, NOISE = [2.0, -1.0, 0.5], 0.3, 0.05
LR, STEPS = 0.1, 60
EPS = 1e-2
"""Central differences of a quadratic loss are exact up to rounding; float32 rounding of a loss
near 1 is ~1e-7, so over 2 * EPS the difference is good to ~1e-5."""


class Audit:
    """Collects named checks so a stage reports every result, not only the first failure."""

    def __init__(self) -> None:
        self.results: list[dict[str, object]] = []

    def check(self, stage: int, name: str, passed: bool, detail: str) -> None:
        result = {"stage": stage, "name": name, "passed": bool(passed), "detail": detail}
        self.results.append(result)
        print(f"  [{'ok' if passed else 'FAIL'}] {name}: {detail}")

    @property
    def failed(self) -> list[dict[str, object]]:
        return [r for r in self.results if not r["passed"]]


def model_path(implementation: str) -> Path:
    return HERE / implementation / "model.py"


def load_model(implementation: str) -> ModuleType:
    path = model_path(implementation)
    if not path.is_file():
        hint = (
            "the reference solution is for instructors and is not in the learner download; "
            "use --implementation starter"
            if implementation == "solution"
            else "run from a complete copy of projects/transforms-fit/"
        )
        raise SystemExit(f"error: {path} does not exist: {hint}")
    spec = importlib.util.spec_from_file_location(f"transforms_fit_{implementation}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_data(seed: int = SEED) -> tuple[jnp.ndarray, jnp.ndarray]:
    """A small regression problem with known parameters and a little noise (float32)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(EXAMPLES, FEATURES)).astype(np.float32)
    y = x @ np.array(TRUE_W, np.float32) + TRUE_B + NOISE * rng.normal(size=EXAMPLES)
    return jnp.asarray(x), jnp.asarray(y.astype(np.float32))


def start_params() -> tuple[jnp.ndarray, jnp.ndarray]:
    """Parameters away from the answer (not zero, so a gradient that ignores w shows)."""
    return jnp.array([0.5, 0.5, -0.5], jnp.float32), jnp.float32(-1.0)


def close(a: object, b: object, rtol: float = 1e-4, atol: float = 1e-5) -> bool:
    return bool(np.allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol))


def rounded(a: object, digits: int = 4) -> list[float]:
    return [round(float(v), digits) for v in np.asarray(a).ravel()]


def reference_loss(w: object, b: object, x: object, y: object) -> float:
    """Plain Python (float64) mean squared error: shares no code with model.loss."""
    w_, b_ = [float(v) for v in np.asarray(w)], float(b)
    rows = np.asarray(x).tolist()
    errors = [sum(wi * xi for wi, xi in zip(w_, row, strict=True)) + b_ - float(t)
              for row, t in zip(rows, np.asarray(y).tolist(), strict=True)]
    return sum(e * e for e in errors) / len(errors)


def finite_differences(model: ModuleType, w: jnp.ndarray, b: jnp.ndarray, x: jnp.ndarray,
                       y: jnp.ndarray) -> tuple[np.ndarray, float]:
    """Central differences of the learner's own loss along every coordinate of (w, b)."""
    dw = np.zeros(w.shape, np.float64)
    for i in range(w.shape[0]):
        step = jnp.zeros_like(w).at[i].set(EPS)
        dw[i] = (float(model.loss(w + step, b, x, y))
                 - float(model.loss(w - step, b, x, y))) / (2 * EPS)
    db = (float(model.loss(w, b + EPS, x, y)) - float(model.loss(w, b - EPS, x, y))) / (2 * EPS)
    return dw, db


def stage1(model: ModuleType, audit: Audit) -> None:
    print("Stage 1 · the loss as a pure function")
    x, y = make_data()
    w, b = start_params()
    value = model.loss(w, b, x, y)
    audit.check(1, "loss is a float32 scalar",
                isinstance(value, jax.Array) and value.shape == () and value.dtype == jnp.float32,
                f"{type(value).__name__} shape {getattr(value, 'shape', None)} "
                f"dtype {getattr(value, 'dtype', None)}, expected a float32 jax.Array of shape ()")
    want = reference_loss(w, b, x, y)
    audit.check(1, "loss matches a plain-Python reference", close(value, want),
                f"{float(value):.6f} vs {want:.6f}")
    again = model.loss(w, b, x, y)
    audit.check(1, "same inputs, same loss", float(again) == float(value),
                f"{float(value):.6f} then {float(again):.6f}")
    audit.check(1, "jit gives the same loss", close(jax.jit(model.loss)(w, b, x, y), value),
                "jax.jit(loss) vs eager")
    fitted = model.loss(jnp.array(TRUE_W, jnp.float32), jnp.float32(TRUE_B), x, y)
    audit.check(1, "the true parameters have a small loss", float(fitted) < 4 * NOISE**2,
                f"{float(fitted):.5f} at the parameters the data was drawn from")


def stage2(model: ModuleType, audit: Audit) -> None:
    print("Stage 2 · gradient against finite differences")
    x, y = make_data()
    w, b = start_params()
    dw, db = model.loss_grad(w, b, x, y)
    audit.check(2, "gradients are shaped like the parameters",
                tuple(dw.shape) == tuple(w.shape) and tuple(jnp.shape(db)) == (),
                f"dw {tuple(dw.shape)}, db {tuple(jnp.shape(db))}; expected {tuple(w.shape)}, ()")
    fd_w, fd_b = finite_differences(model, w, b, x, y)
    audit.check(2, "d loss / d w matches central differences", close(dw, fd_w, 1e-3, 1e-3),
                f"grad {rounded(dw)} vs differences {rounded(fd_w)} (eps {EPS})")
    audit.check(2, "d loss / d b matches central differences", close(db, fd_b, 1e-3, 1e-3),
                f"grad {float(db):.4f} vs differences {fd_b:.4f}")
    direction = jnp.asarray(np.random.default_rng(SEED + 1).normal(size=FEATURES), jnp.float32)
    slope = (float(model.loss(w + EPS * direction, b, x, y))
             - float(model.loss(w - EPS * direction, b, x, y))) / (2 * EPS)
    audit.check(2, "directional derivative agrees", close(jnp.dot(dw, direction), slope,
                                                          1e-3, 1e-3),
                f"grad . v = {float(jnp.dot(dw, direction)):.4f}, differences {slope:.4f}")


def stage3(model: ModuleType, audit: Audit) -> None:
    print("Stage 3 · a jitted training step")
    x, y = make_data()
    w, b = start_params()
    before = np.asarray(w).copy()
    audit.check(3, "train_step is compiled with jax.jit", hasattr(model.train_step, "lower"),
                "decorate train_step with @jax.jit" if not hasattr(model.train_step, "lower")
                else "train_step has .lower: it is a jax.jit function")
    new_w, new_b, value = model.train_step(w, b, x, y, LR)
    audit.check(3, "returns new parameters of the same shapes",
                tuple(new_w.shape) == tuple(w.shape) and tuple(jnp.shape(new_b)) == ()
                and not close(new_w, w), f"w {tuple(new_w.shape)}, b {tuple(jnp.shape(new_b))}")
    audit.check(3, "the parameters passed in are unchanged", np.array_equal(np.asarray(w), before),
                "w after the step equals w before it")
    dw, db = model.loss_grad(w, b, x, y)
    audit.check(3, "new = old - lr * gradient",
                close(new_w, w - LR * dw) and close(new_b, b - LR * db),
                f"w {rounded(new_w)} vs {rounded(w - LR * dw)}")
    audit.check(3, "reports the loss before the step", close(value, model.loss(w, b, x, y)),
                f"{float(value):.5f}")
    after = model.loss(new_w, new_b, x, y)
    audit.check(3, "one step lowers the loss", float(after) < float(value),
                f"{float(value):.5f} -> {float(after):.5f} with lr {LR}")


def stage4(model: ModuleType, audit: Audit) -> None:
    print("Stage 4 · per-example gradients with vmap")
    x, y = make_data()
    w, b = start_params()
    gw, gb = model.per_example_grads(w, b, x, y)
    audit.check(4, "one gradient per example",
                tuple(gw.shape) == (EXAMPLES, FEATURES) and tuple(gb.shape) == (EXAMPLES,),
                f"{tuple(gw.shape)}, {tuple(gb.shape)}; expected {(EXAMPLES, FEATURES)}, "
                f"{(EXAMPLES,)}")
    dw, db = model.loss_grad(w, b, x, y)
    audit.check(4, "their mean is the batch gradient",
                close(jnp.mean(gw, axis=0), dw) and close(jnp.mean(gb), db),
                f"mean {rounded(jnp.mean(gw, axis=0))} vs batch {rounded(dw)}")
    rows = [3, EXAMPLES - 1]
    alone = [model.loss_grad(w, b, x[i:i + 1], y[i:i + 1]) for i in rows]
    audit.check(4, "each row is that example's own gradient",
                all(close(gw[i], a[0]) and close(gb[i], a[1])
                    for i, a in zip(rows, alone, strict=True)),
                f"rows {rows} vs loss_grad on a batch of one")
    audit.check(4, "per-example gradients differ between examples",
                not close(gw[0], gw[1]), "a batch gradient broadcast to every row is not it")


def fit(model: ModuleType) -> dict[str, list[float]]:
    x, y = make_data()
    w, b = start_params()
    losses = []
    for _ in range(STEPS):
        w, b, value = model.train_step(w, b, x, y, LR)
        losses.append(float(value))
    losses.append(float(model.loss(w, b, x, y)))
    return {"step": [float(s) for s in range(STEPS + 1)], "loss": losses,
            "w": rounded(w, 6), "b": [round(float(b), 6)]}


def environment() -> dict[str, object]:
    return {
        "timestamp": datetime.now(UTC).isoformat(),
        "python": platform.python_version(),
        "jax": jax.__version__,
        "numpy": np.__version__,
        "backend": jax.default_backend(),
        "device_count": jax.device_count(),
    }


def stage5(model: ModuleType, audit: Audit, evidence_dir: Path, implementation: str) -> None:
    for stage in (stage1, stage2, stage3, stage4):
        stage(model, audit)
    print(f"Stage 5 · evidence into {evidence_dir}")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    evidence_dir.mkdir(parents=True, exist_ok=True)
    curve = fit(model)
    record = {
        "project": PROJECT_ID,
        "implementation": implementation,
        "provenance": {
            "command": [Path(sys.argv[0]).name, *sys.argv[1:]],
            "model_sha256": hashlib.sha256(model_path(implementation).read_bytes()).hexdigest(),
            "data": {"seed": SEED, "examples": EXAMPLES, "features": FEATURES,
                     "true_w": TRUE_W, "true_b": TRUE_B, "noise": NOISE},
            "start": {"w": rounded(start_params()[0], 6), "b": float(start_params()[1])},
            "optimizer": {"rule": "gradient descent", "lr": LR, "steps": STEPS},
            "finite_difference_eps": EPS,
        },
        "curve": curve,
        "checks": audit.results,
        "environment": environment(),
    }
    (evidence_dir / "evidence.json").write_text(json.dumps(record, indent=2) + "\n")
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.semilogy(curve["step"], curve["loss"], "o-", markersize=3)
    ax.axhline(NOISE**2, color="grey", linestyle="--", label=f"noise variance {NOISE**2:g}")
    ax.set_xlabel("training step (jitted train_step)")
    ax.set_ylabel("mean squared error (log scale)")
    ax.set_title(f"Gradient descent, lr {LR}: the loss falls to the noise floor")
    ax.legend()
    fig.tight_layout()
    fig.savefig(evidence_dir / "figure.png", dpi=100)
    plt.close(fig)

    read = json.loads((evidence_dir / "evidence.json").read_text())
    losses = read["curve"]["loss"]
    audit.check(5, "the loss never rises", all(b <= a * (1 + 1e-6) for a, b in
                                               zip(losses, losses[1:], strict=False)),
                f"{losses[0]:.4f} -> {losses[-1]:.6f} over {STEPS} steps")
    audit.check(5, "the fit reaches the noise floor", losses[-1] < 4 * NOISE**2,
                f"final loss {losses[-1]:.6f} vs noise variance {NOISE**2:g}")
    audit.check(5, "fitted parameters are near the true ones",
                close(read["curve"]["w"], TRUE_W, 0, 0.05)
                and close(read["curve"]["b"], [TRUE_B], 0, 0.05),
                f"w {read['curve']['w']} vs {TRUE_W}, b {read['curve']['b']} vs {TRUE_B}")
    audit.check(5, "evidence matches a fresh fit", close(losses, fit(model)["loss"]),
                "evidence.json curve vs a rerun")
    audit.check(5, "provenance names this model.py",
                read["provenance"]["model_sha256"]
                == hashlib.sha256(model_path(implementation).read_bytes()).hexdigest(),
                f"sha256 {read['provenance']['model_sha256'][:12]}…")
    png = (evidence_dir / "figure.png").read_bytes()[:8]
    audit.check(5, "figure is a PNG", png == b"\x89PNG\r\n\x1a\n", "figure.png signature")
    audit.check(5, "earlier stages passed", not [r for r in read["checks"] if not r["passed"]],
                "every check recorded in evidence.json passed")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--implementation", choices=["starter", "solution"], default="starter")
    parser.add_argument("--stage", type=int, choices=[1, 2, 3, 4, 5], default=5)
    parser.add_argument("--evidence-dir", type=Path, default=Path("runs/transforms-fit"))
    args = parser.parse_args(argv)
    model = load_model(args.implementation)
    audit = Audit()
    stages: dict[int, Callable[[], None]] = {
        1: lambda: stage1(model, audit),
        2: lambda: stage2(model, audit),
        3: lambda: stage3(model, audit),
        4: lambda: stage4(model, audit),
        5: lambda: stage5(model, audit, args.evidence_dir, args.implementation),
    }
    try:
        stages[args.stage]()
    except NotImplementedError as exc:
        print(f"\nSTOPPED at a TODO ({args.implementation}/model.py): {exc}", file=sys.stderr)
        return 2
    if audit.failed:
        names = ", ".join(str(r["name"]) for r in audit.failed)
        print(f"\nFAIL: {PROJECT_ID} stage {args.stage}: {len(audit.failed)} check(s) failed: "
              f"{names}", file=sys.stderr)
        return 1
    print(f"\nPASS: {PROJECT_ID} stage {args.stage} ({len(audit.results)} checks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
