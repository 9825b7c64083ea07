"""Run the shard-the-step project stages against the starter or the reference solution.

    python projects/shard-the-step/run.py --implementation starter --stage 1
    python projects/shard-the-step/run.py --implementation solution --stage 5 \
        --evidence-dir runs/shard-the-step

Stage 1: the batch split along 'data' on a mesh of 8 logical CPU devices.
Stage 2: the sharded step (parameters whole, batch split) lowers the loss, layouts kept.
Stage 3: a trajectory equal to one device's (rtol 1e-4, atol 1e-5).
Stage 4: the compiled step's collectives: an all-reduce, no all-gather.
Stage 5: the shard_map step gives the sharded step's parameters; with --evidence-dir, evidence.json.

Exit status: 0 every check passed, 1 a check failed, 2 the implementation stopped at a TODO.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import platform
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
STEPS, LR = 5, 0.1


class Failed(Exception):
    pass


def load(implementation: str) -> ModuleType:
    path = HERE / implementation / "model.py"
    spec = importlib.util.spec_from_file_location("model", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise Failed(message)


def problem() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(64, 3)).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5], np.float32) + 0.3).astype(np.float32)
    return np.zeros(3, np.float32), np.float32(0.0), x, y


def one_device(m: ModuleType, w, b, x, y) -> tuple[list, list]:  # noqa: ANN001
    """The same steps without any sharding: the learner's loss, jax.grad, SGD."""
    params, losses = (jnp.asarray(w), jnp.asarray(b)), []
    for _ in range(STEPS):
        value, grads = jax.value_and_grad(m.loss)(params, jnp.asarray(x), jnp.asarray(y))
        params = jax.tree.map(lambda p, g: p - LR * g, params, grads)
        losses.append(float(value))
    return [np.asarray(p) for p in params], losses


def collectives(f, *args) -> dict[str, int]:  # noqa: ANN001
    text = jax.jit(f).lower(*args).compile().as_text()
    rights = [line.split(" = ", 1)[1] for line in text.splitlines() if " = " in line]
    names = ("all-reduce", "all-gather", "reduce-scatter", "collective-permute", "all-to-all")
    return {c: sum(f" {c}(" in r or f" {c}-start(" in r for r in rights) for c in names}


def stage(m: ModuleType, number: int, record: dict) -> None:
    w, b, x, y = problem()
    if number == 1:
        placed = m.shard_batch(x)
        expect(len(placed.sharding.device_set) == 8 and placed.sharding.shard_shape(x.shape)
               == (8, 3), f"shard_batch: {placed.sharding} is not the rows split over 8 devices")
        expect(bool(np.array_equal(np.asarray(placed), x)), "shard_batch changed the values")
    elif number == 2:
        nw, nb, value = m.sharded_step(w, b, x, y, LR)
        expect(nw.sharding.is_fully_replicated and len(nw.sharding.device_set) == 8,
               f"sharded_step's w is {nw.sharding}, not whole on all 8 devices")
        after = m.sharded_step(nw, nb, x, y, LR)[2]
        expect(float(after) < float(value), "the step did not lower the loss")
    elif number == 3:
        fw, fb, losses = m.train(w, b, x, y, LR, STEPS)
        ref, ref_losses = one_device(m, w, b, x, y)
        expect(np.allclose(np.asarray(losses), ref_losses, rtol=1e-4, atol=1e-5)
               and np.allclose(np.asarray(fw), ref[0], rtol=1e-4, atol=1e-5),
               f"8 devices {np.asarray(losses)} vs 1 device {np.asarray(ref_losses)}")
        record["trajectory"] = {"eight_devices": np.asarray(losses).tolist(),
                                "one_device": ref_losses}
    elif number == 4:
        found = collectives(m.sharded_step, w, b, x, y, LR)
        expect(found["all-reduce"] >= 1 and found["all-gather"] == 0,
               f"the compiled step holds {found}: expected an all-reduce and no all-gather")
        record["collectives"] = found
    elif number == 5:
        a = m.shard_map_step(w, b, x, y, LR)
        s = m.sharded_step(w, b, x, y, LR)
        expect(all(np.allclose(np.asarray(p), np.asarray(q), rtol=1e-5, atol=1e-6)
                   for p, q in zip(a, s, strict=True)), "shard_map_step differs from sharded_step")
        record["shard_map_collectives"] = collectives(m.shard_map_step, w, b, x, y, LR)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--implementation", choices=("starter", "solution"), default="starter")
    parser.add_argument("--stage", type=int, choices=range(1, 6), default=5)
    parser.add_argument("--evidence-dir", type=Path)
    args = parser.parse_args()
    record: dict = {}
    try:
        m = load(args.implementation)
        for number in range(1, args.stage + 1):
            stage(m, number, record)
            print(f"PASS: project.shard-the-step stage {number}")
    except NotImplementedError as exc:
        print(f"TODO: {exc} is not written yet: fill in its TODO in {args.implementation}/model.py")
        return 2
    except Failed as exc:
        print(f"FAIL: {exc}")
        return 1
    if args.evidence_dir is not None and args.stage == 5:
        args.evidence_dir.mkdir(parents=True, exist_ok=True)
        source = (HERE / args.implementation / "model.py").read_bytes()
        record.update(model_sha256=hashlib.sha256(source).hexdigest(), steps=STEPS, lr=LR,
                      environment={"python": platform.python_version(), "jax": jax.__version__,
                                   "device_count": jax.device_count(),
                                   "timestamp": datetime.now(UTC).isoformat()})
        path = args.evidence_dir / "evidence.json"
        path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
