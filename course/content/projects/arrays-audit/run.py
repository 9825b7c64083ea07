"""Run the arrays-audit project stages against the starter or the reference solution.

    python projects/arrays-audit/run.py --implementation starter --stage 1
    python projects/arrays-audit/run.py --implementation starter --stage 3 \
        --evidence-dir runs/arrays-audit

Stage 1: independent calculations (masked moments against a plain-Python reference).
Stage 2: changed-condition diagnosis (more padding, another pad value, an empty row, jit/vmap).
Stage 3: evidence (evidence.json + figure.png written into --evidence-dir).
Stage 4: integration (stages 1-3, then the evidence read back and checked).

Exit status: 0 every check passed, 1 a check failed, 2 the implementation stopped at a TODO.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import platform
import statistics
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

import jax
import jax.numpy as jnp
import numpy as np

HERE = Path(__file__).resolve().parent
PROJECT_ID = "project.arrays-audit"
SEQUENCES: list[list[float]] = [[1.0, 2.0, 3.0], [4.0, 6.0], [10.0], [2.0, 2.0, 2.0, 2.0, 8.0]]
LENGTH = 6
PAD_LENGTHS = list(range(5, 17))


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


def load_model(implementation: str) -> ModuleType:
    path = HERE / implementation / "model.py"
    if not path.is_file():
        hint = (
            "the reference solution is for instructors and is not in the learner download; "
            "use --implementation starter"
            if implementation == "solution"
            else "run from a complete copy of projects/arrays-audit/"
        )
        raise SystemExit(f"error: {path} does not exist: {hint}")
    spec = importlib.util.spec_from_file_location(f"arrays_audit_{implementation}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def close(a: object, b: object) -> bool:
    return bool(np.allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6, equal_nan=True))


def rounded(a: object, digits: int) -> list[float]:
    return [round(float(v), digits) for v in np.asarray(a).ravel()]


def stage1(model: ModuleType, audit: Audit) -> None:
    print("Stage 1 · independent calculations")
    values, mask = model.pad_batch(SEQUENCES, LENGTH)
    lengths = [float(len(s)) for s in SEQUENCES]
    means = [statistics.fmean(s) for s in SEQUENCES]
    variances = [statistics.pvariance(s) for s in SEQUENCES]
    count = model.masked_count(mask)
    batch = (len(SEQUENCES),)
    audit.check(1, "count shape", tuple(count.shape) == batch,
                f"masked_count{tuple(mask.shape)} -> {tuple(count.shape)}, expected {batch}")
    audit.check(1, "count values", close(count, lengths), f"{rounded(count, 1)} vs {lengths}")
    mean = model.masked_mean(values, mask)
    audit.check(1, "mean shape", tuple(mean.shape) == (len(SEQUENCES),), f"{tuple(mean.shape)}")
    audit.check(1, "mean values", close(mean, means),
                f"{rounded(mean, 4)} vs reference {rounded(means, 4)}")
    var = model.masked_variance(values, mask)
    audit.check(1, "variance values", close(var, variances),
                f"{rounded(var, 4)} vs reference {rounded(variances, 4)}")
    audit.check(1, "dtype", mean.dtype == jnp.float32 and var.dtype == jnp.float32,
                f"mean {mean.dtype}, variance {var.dtype}, expected float32")


def stage2(model: ModuleType, audit: Audit) -> None:
    print("Stage 2 · changed-condition diagnosis")
    short_v, short_m = model.pad_batch(SEQUENCES, LENGTH)
    long_v, long_m = model.pad_batch(SEQUENCES, 2 * LENGTH)
    naive_short, naive_long = model.naive_mean(short_v), model.naive_mean(long_v)
    audit.check(2, "naive mean is padding-sensitive", not close(naive_short, naive_long),
                f"length {LENGTH}: {rounded(naive_short, 3)}, "
                f"length {2 * LENGTH}: {rounded(naive_long, 3)}")
    audit.check(2, "masked mean ignores more padding",
                close(model.masked_mean(short_v, short_m), model.masked_mean(long_v, long_m)),
                f"length {LENGTH} vs {2 * LENGTH}")
    audit.check(2, "masked variance ignores more padding",
                close(model.masked_variance(short_v, short_m),
                      model.masked_variance(long_v, long_m)),
                f"length {LENGTH} vs {2 * LENGTH}")
    odd_v, odd_m = model.pad_batch(SEQUENCES, LENGTH, pad_value=99.0)
    audit.check(2, "masked moments ignore the pad value",
                close(model.masked_mean(odd_v, odd_m), model.masked_mean(short_v, short_m))
                and close(model.masked_variance(odd_v, odd_m),
                          model.masked_variance(short_v, short_m)),
                "pad_value 99 vs 0")
    empty_v, empty_m = model.pad_batch([[3.0, 5.0], []], 4)
    empty = np.asarray(model.masked_mean(empty_v, empty_m))
    audit.check(2, "empty row has no mean",
                bool(np.isnan(empty[1])) and math.isclose(empty[0], 4.0),
                f"{empty.tolist()}: expected [4.0, nan], not a silent 0")
    jitted = jax.jit(model.masked_mean)(short_v, short_m)
    audit.check(2, "jit gives the same values", close(jitted, model.masked_mean(short_v, short_m)),
                "jax.jit(masked_mean) vs eager")
    per_row = jax.vmap(lambda v, m: model.masked_mean(v, m, axis=0))(short_v, short_m)
    audit.check(2, "vmap over rows gives the batch result",
                tuple(per_row.shape) == (len(SEQUENCES),)
                and close(per_row, model.masked_mean(short_v, short_m)),
                f"vmap(row mean) shape {tuple(per_row.shape)}")


def environment() -> dict[str, object]:
    return {
        "timestamp": datetime.now(UTC).isoformat(),
        "python": platform.python_version(),
        "jax": jax.__version__,
        "backend": jax.default_backend(),
        "device_count": jax.device_count(),
    }


def sweep(model: ModuleType) -> dict[str, list[float]]:
    naive, masked = [], []
    for length in PAD_LENGTHS:
        values, mask = model.pad_batch(SEQUENCES, length)
        naive.append(float(model.naive_mean(values)[0]))
        masked.append(float(model.masked_mean(values, mask)[0]))
    return {"pad_length": [float(n) for n in PAD_LENGTHS], "naive_mean_row0": naive,
            "masked_mean_row0": masked}


def stage3(model: ModuleType, audit: Audit, evidence_dir: Path, implementation: str) -> None:
    print(f"Stage 3 · evidence into {evidence_dir}")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    evidence_dir.mkdir(parents=True, exist_ok=True)
    values, mask = model.pad_batch(SEQUENCES, LENGTH)
    data = sweep(model)
    record = {
        "project": PROJECT_ID,
        "implementation": implementation,
        "sequences": SEQUENCES,
        "length": LENGTH,
        "masked_mean": np.asarray(model.masked_mean(values, mask)).tolist(),
        "masked_variance": np.asarray(model.masked_variance(values, mask)).tolist(),
        "naive_mean": np.asarray(model.naive_mean(values)).tolist(),
        "sweep": data,
        "checks": audit.results,
        "environment": environment(),
    }
    (evidence_dir / "evidence.json").write_text(json.dumps(record, indent=2) + "\n")
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(data["pad_length"], data["naive_mean_row0"], "o-", label="naive mean (÷ padded length)")
    ax.plot(data["pad_length"], data["masked_mean_row0"], "s-", label="masked mean (÷ real count)")
    ax.set_xlabel("padded length of the batch")
    ax.set_ylabel("mean of row 0 = [1, 2, 3]")
    ax.set_title("More padding changes the naive mean, not the masked one")
    ax.legend()
    fig.tight_layout()
    fig.savefig(evidence_dir / "figure.png", dpi=100)
    plt.close(fig)
    audit.check(3, "evidence written", (evidence_dir / "evidence.json").is_file()
                and (evidence_dir / "figure.png").is_file(),
                f"{evidence_dir / 'evidence.json'}, {evidence_dir / 'figure.png'}")


def stage4(model: ModuleType, audit: Audit, evidence_dir: Path, implementation: str) -> None:
    stage1(model, audit)
    stage2(model, audit)
    stage3(model, audit, evidence_dir, implementation)
    print("Stage 4 · integration")
    record = json.loads((evidence_dir / "evidence.json").read_text())
    audit.check(4, "evidence matches a recomputation", close(record["sweep"]["masked_mean_row0"],
                sweep(model)["masked_mean_row0"]), "evidence.json sweep vs a fresh run")
    audit.check(4, "masked mean is flat across the sweep",
                max(record["sweep"]["masked_mean_row0"]) - min(record["sweep"]["masked_mean_row0"])
                < 1e-6, "row 0 masked mean over pad lengths "
                f"{PAD_LENGTHS[0]}..{PAD_LENGTHS[-1]}")
    png = (evidence_dir / "figure.png").read_bytes()[:8]
    audit.check(4, "figure is a PNG", png == b"\x89PNG\r\n\x1a\n", "figure.png signature")
    audit.check(4, "earlier stages passed", not [r for r in record["checks"] if not r["passed"]],
                "every check recorded in evidence.json passed")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--implementation", choices=["starter", "solution"], default="starter")
    parser.add_argument("--stage", type=int, choices=[1, 2, 3, 4], default=4)
    parser.add_argument("--evidence-dir", type=Path, default=Path("runs/arrays-audit"))
    args = parser.parse_args(argv)
    model = load_model(args.implementation)
    audit = Audit()
    stages: dict[int, Callable[[], None]] = {
        1: lambda: stage1(model, audit),
        2: lambda: stage2(model, audit),
        3: lambda: stage3(model, audit, args.evidence_dir, args.implementation),
        4: lambda: stage4(model, audit, args.evidence_dir, args.implementation),
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
