"""Run the train-from-scratch project stages against the starter or the reference solution.

    python projects/train-from-scratch/run.py --implementation starter --stage 1
    python projects/train-from-scratch/run.py --implementation starter --stage 6 \
        --evidence-dir runs/train-from-scratch

Stage 1: init_params from a key. Stage 2: the loss. Stage 3: one jitted step on any parameter
pytree, compiled once. Stage 4: the training loop (an order per epoch, the loss falls, the seed
decides the run). Stage 5: checkpoint and exact resumption (bit for bit). Stage 6: evidence
(stages 1-5, a seeded fit, evidence.json + figure.png in --evidence-dir, read back and rerun).

Exit status: 0 every check passed, 1 a check failed, 2 the implementation stopped at a TODO.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import math
import platform
import sys
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

import jax
import jax.numpy as jnp
import numpy as np
import optax

HERE = Path(__file__).resolve().parent
PROJECT_ID = "project.train-from-scratch"
SEED, HIDDEN, EXAMPLES = 0, 16, 256
FIT_EPOCHS, FIT_EXAMPLES = 40, 512


class Audit:
    """Collects named checks so a stage reports every result, not only the first failure."""

    def __init__(self) -> None:
        self.results: list[dict[str, object]] = []

    def check(self, stage: int, name: str, passed: bool, detail: str) -> None:
        self.results.append({"stage": stage, "name": name, "passed": bool(passed),
                             "detail": detail})
        print(f"  [{'ok' if passed else 'FAIL'}] {name}: {detail}")

    @property
    def failed(self) -> list[dict[str, object]]:
        return [r for r in self.results if not r["passed"]]


def model_path(implementation: str) -> Path:
    return HERE / implementation / "model.py"


def load_model(implementation: str) -> ModuleType:
    path = model_path(implementation)
    if not path.is_file():
        hint = ("the reference solution is for instructors and is not in the learner download; "
                "use --implementation starter" if implementation == "solution"
                else "run from a complete copy of projects/train-from-scratch/")
        raise SystemExit(f"error: {path} does not exist: {hint}")
    spec = importlib.util.spec_from_file_location(f"train_from_scratch_{implementation}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def same(a: object, b: object) -> bool:
    """Equal structure and equal leaves, bit for bit."""
    return (jax.tree.structure(a) == jax.tree.structure(b)
            and all(np.array_equal(np.asarray(x), np.asarray(y))
                    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True)))


def data(model: ModuleType, n: int = EXAMPLES, seed: int = SEED) -> tuple[jax.Array, jax.Array]:
    return model.make_spirals(jax.random.fold_in(jax.random.key(seed), 99), n)


def other_layout(key: jax.Array, hidden: int) -> dict:
    """Parameters in another layout (tuples, other keys, a None), for the pytree check."""
    k1, k2, k3 = jax.random.split(key, 3)
    return {"embed": (jax.random.normal(k1, (2, hidden)), jnp.zeros(hidden)),
            "mid": {"kernel": jax.random.normal(k2, (hidden, hidden)) / hidden ** 0.5,
                    "bias": jnp.zeros(hidden)},
            "head": [jax.random.normal(k3, (hidden, 2)) / hidden ** 0.5, jnp.zeros(2)],
            "frozen": None}


def other_predict(params: dict, x: jax.Array) -> jax.Array:
    w1, b1 = params["embed"]
    h = jnp.tanh(x @ w1 + b1)
    h = jnp.tanh(h @ params["mid"]["kernel"] + params["mid"]["bias"])
    return h @ params["head"][0] + params["head"][1]


def stage1(model: ModuleType, audit: Audit) -> None:
    print("Stage 1 · initialisation from a key")
    key = jax.random.key(SEED)
    params = model.init_params(key, (2, HIDDEN, HIDDEN, 2))
    shapes = [tuple(leaf.shape) for leaf in jax.tree.leaves(params)]
    audit.check(1, "three layers of the right shapes",
                shapes == [(HIDDEN,), (2, HIDDEN), (HIDDEN,), (HIDDEN, HIDDEN), (2,), (HIDDEN, 2)],
                f"leaf shapes {shapes}")
    std = float(jnp.std(model.init_params(key, (2, 4096, 2))[0]["w"]))
    audit.check(1, "weights scaled by sqrt(1 / fan_in)", abs(std - math.sqrt(0.5)) < 0.02,
                f"std of a (2, 4096) layer {std:.3f}, expected {math.sqrt(0.5):.3f}")
    audit.check(1, "biases start at zero", all(not jnp.any(layer["b"]) for layer in params),
                "every b is zeros")
    audit.check(1, "the same key, the same parameters",
                same(params, model.init_params(key, (2, HIDDEN, HIDDEN, 2))), "two calls agree")
    audit.check(1, "another key, other parameters",
                not same(params, model.init_params(jax.random.key(1), (2, HIDDEN, HIDDEN, 2))),
                "key(0) vs key(1)")
    audit.check(1, "no two layers share a key",
                not np.array_equal(np.asarray(params[1]["w"][:2]),
                                   np.asarray(model.init_params(key, (2, 2, 2, 2))[0]["w"]))
                and not jnp.allclose(model.init_params(key, (3, 3, 3))[0]["w"],
                                     model.init_params(key, (3, 3, 3))[1]["w"]),
                "two (3, 3) layers from one key differ")


def reference_loss(logits: np.ndarray, y: np.ndarray) -> float:
    z = np.asarray(logits, np.float64)
    z = z - z.max(axis=1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return float(-log_p[np.arange(len(y)), np.asarray(y)].mean())


def stage2(model: ModuleType, audit: Audit) -> None:
    print("Stage 2 · the loss")
    x, y = data(model)
    params = model.model_params(jax.random.key(SEED), HIDDEN)
    value = model.loss_fn(params, x, y)
    audit.check(2, "a float32 scalar",
                isinstance(value, jax.Array) and value.shape == () and value.dtype == jnp.float32,
                f"{type(value).__name__} shape {getattr(value, 'shape', None)}")
    want = reference_loss(np.asarray(model.predict(params, x)), np.asarray(y))
    audit.check(2, "equals a NumPy cross-entropy", abs(float(value) - want) < 1e-5,
                f"{float(value):.6f} vs {want:.6f}")
    audit.check(2, "near log 2 at initialisation", abs(float(value) - math.log(2)) < 0.3,
                f"{float(value):.4f} vs {math.log(2):.4f}")
    audit.check(2, "the same under jax.jit",
                abs(float(jax.jit(model.loss_fn)(params, x, y)) - float(value)) < 1e-6,
                "jax.jit(loss_fn) vs eager")


def stage3(model: ModuleType, audit: Audit) -> None:
    print("Stage 3 · a jitted step on any pytree")
    x, y = data(model)
    params = model.model_params(jax.random.key(SEED), HIDDEN)
    audit.check(3, "train_step is compiled with jax.jit", hasattr(model.train_step, "lower"),
                "train_step has .lower" if hasattr(model.train_step, "lower")
                else "decorate train_step with @jax.jit")
    model.train_step.clear_cache() if hasattr(model.train_step, "clear_cache") else None
    p, s = params, model.optimizer.init(params)
    losses = []
    for _ in range(20):
        p, s, value = model.train_step(p, s, x[:model.BATCH], y[:model.BATCH])
        losses.append(float(value))
    audit.check(3, "the loss falls", losses[-1] < losses[0],
                f"{losses[0]:.4f} -> {losses[-1]:.4f} over 20 steps on one batch")
    audit.check(3, "new parameters, the same structure",
                jax.tree.structure(p) == jax.tree.structure(params) and not same(p, params),
                str(jax.tree.structure(p))[:60])
    compiled = getattr(model.train_step, "_cache_size", lambda: -1)()
    audit.check(3, "compiled once for 20 steps", compiled == 1, f"{compiled} compilation(s)")
    saved = model.predict
    try:  # another layout: the step must not know the parameters' nesting
        model.predict = other_predict
        q = other_layout(jax.random.key(SEED), HIDDEN)
        q2, _, first = model.train_step(q, model.optimizer.init(q), x[:model.BATCH],
                                        y[:model.BATCH])
        ok = jax.tree.structure(q2) == jax.tree.structure(q) and not same(q, q2)
        detail = f"a dict of tuples with a None: loss {float(first):.4f}, structure kept"
    except Exception as exc:  # noqa: BLE001 - the learner's code may fail in any way
        ok, detail = False, f"{type(exc).__name__}: {str(exc)[:120]}"
    finally:
        model.predict = saved
    audit.check(3, "works on another parameter pytree", ok, detail)


def straight_run(model: ModuleType, epochs: int, x: jax.Array, y: jax.Array) -> tuple:
    state = model.start_state(SEED, HIDDEN)
    return model.train(state["params"], state["opt_state"], state["key"], x, y, epochs)


def stage4(model: ModuleType, audit: Audit) -> None:
    print("Stage 4 · the training loop")
    x, y = data(model)
    params, _, losses = straight_run(model, 6, x, y)
    audit.check(4, "one mean loss per epoch, as an array",
                isinstance(losses, jax.Array) and losses.shape == (6,),
                f"{type(losses).__name__} of shape {getattr(losses, 'shape', None)}")
    audit.check(4, "the loss falls over the epochs", float(losses[-1]) < float(losses[0]),
                f"{float(losses[0]):.4f} -> {float(losses[-1]):.4f}")
    again = straight_run(model, 6, x, y)
    audit.check(4, "the same seed, the same run", same(params, again[0]) and same(losses, again[2]),
                "two runs from seed 0 agree bit for bit")
    state = model.start_state(SEED, HIDDEN)
    shuffled = model.train(state["params"], state["opt_state"], jax.random.key(SEED + 1), x, y,
                           6)
    audit.check(4, "another shuffle key, another run", not same(params, shuffled[0]),
                "key(1) for the epochs' orders")
    one = model.train(state["params"], state["opt_state"], state["key"], x, y, 1, 1)
    zero = model.train(state["params"], state["opt_state"], state["key"], x, y, 1, 0)
    audit.check(4, "every epoch has its own order", not same(one[0], zero[0]),
                "epoch 1 alone vs epoch 0 alone from the same start")


def stage5(model: ModuleType, audit: Audit) -> None:
    print("Stage 5 · checkpoint and exact resumption")
    x, y = data(model)
    params, opt_state, losses = straight_run(model, 6, x, y)
    template = model.start_state(SEED, HIDDEN)
    p, s, first = model.train(template["params"], template["opt_state"], template["key"], x, y, 3)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "checkpoint.npz"
        model.save_checkpoint(path, dict(template, params=p, opt_state=s, epoch=jnp.array(3)))
        audit.check(5, "the checkpoint is a file of arrays", path.is_file(),
                    f"{path.name}, {path.stat().st_size if path.is_file() else 0} bytes")
        restored = model.load_checkpoint(path, model.start_state(SEED, HIDDEN))
    audit.check(5, "restored state equals the saved one",
                same(restored["params"], p) and same(restored["opt_state"], s)
                and int(restored["epoch"]) == 3
                and same(jax.random.key_data(restored["key"]), jax.random.key_data(template["key"])),
                "params, optimizer state, epoch and key")
    p2, s2, rest = model.train(restored["params"], restored["opt_state"], restored["key"], x, y,
                               3, int(restored["epoch"]))
    audit.check(5, "the resumed trajectory equals the straight one",
                same(jnp.concatenate([first, rest]), losses),
                f"6 epoch losses, bit for bit (last {float(losses[-1]):.6f})")
    audit.check(5, "the resumed parameters equal the straight run's", same(p2, params)
                and same(s2, opt_state), "every leaf, bit for bit")


def fit(model: ModuleType) -> dict[str, list[float]]:
    """A seeded run: per-epoch training loss and accuracy on held-out spirals."""
    x, y = data(model, FIT_EXAMPLES)
    test_x, test_y = data(model, 256, SEED + 1)
    state = model.start_state(SEED, HIDDEN)
    params, opt_state, key = state["params"], state["opt_state"], state["key"]
    losses, accuracy = [], []
    for epoch in range(FIT_EPOCHS):
        params, opt_state, loss = model.train(params, opt_state, key, x, y, 1, epoch)
        losses.append(round(float(loss[0]), 6))  # one conversion per epoch, for the log
        hits = jnp.argmax(model.predict(params, test_x), axis=1) == test_y
        accuracy.append(round(float(jnp.mean(hits)), 6))
    return {"epoch": list(range(1, FIT_EPOCHS + 1)), "train_loss": losses,
            "test_accuracy": accuracy}


def environment() -> dict[str, object]:
    return {"timestamp": datetime.now(UTC).isoformat(), "python": platform.python_version(),
            "jax": jax.__version__, "optax": optax.__version__, "numpy": np.__version__,
            "backend": jax.default_backend(), "device_count": jax.device_count()}


def stage6(model: ModuleType, audit: Audit, evidence_dir: Path, implementation: str) -> None:
    for stage in (stage1, stage2, stage3, stage4, stage5):
        stage(model, audit)
    print(f"Stage 6 · evidence into {evidence_dir}")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    evidence_dir.mkdir(parents=True, exist_ok=True)
    curve = fit(model)
    sha = hashlib.sha256(model_path(implementation).read_bytes()).hexdigest()
    record = {"project": PROJECT_ID, "implementation": implementation,
              "provenance": {"command": [Path(sys.argv[0]).name, *sys.argv[1:]],
                             "model_sha256": sha,
                             "data": {"generator": "make_spirals", "seed": SEED,
                                      "train": FIT_EXAMPLES, "test": 256},
                             "model": {"sizes": [2, HIDDEN, HIDDEN, 2]},
                             "optimizer": {"rule": "optax.adam", "lr": model.LR,
                                           "batch": model.BATCH, "epochs": FIT_EPOCHS}},
              "curve": curve, "checks": audit.results, "environment": environment()}
    (evidence_dir / "evidence.json").write_text(json.dumps(record, indent=2) + "\n")
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
    left.semilogy(curve["epoch"], curve["train_loss"], "o-", markersize=3)
    left.set_xlabel("epoch")
    left.set_ylabel("mean training cross-entropy (log)")
    right.plot(curve["epoch"], curve["test_accuracy"], "o-", markersize=3, color="#548235")
    right.set_xlabel("epoch")
    right.set_ylabel("accuracy on 256 held-out points")
    fig.suptitle(f"MLP 2-{HIDDEN}-{HIDDEN}-2 on two spirals, Adam {model.LR}, seed {SEED} "
                 f"(model.py {sha[:12]})", fontsize=10)
    fig.tight_layout()
    fig.savefig(evidence_dir / "figure.png", dpi=100)
    plt.close(fig)

    read = json.loads((evidence_dir / "evidence.json").read_text())
    losses, acc = read["curve"]["train_loss"], read["curve"]["test_accuracy"]
    audit.check(6, "the loss falls", losses[-1] < 0.5 * losses[0],
                f"{losses[0]:.4f} -> {losses[-1]:.4f} over {FIT_EPOCHS} epochs")
    audit.check(6, "the spirals are separated", acc[-1] >= 0.9,
                f"held-out accuracy {acc[-1]:.3f} (chance is 0.5)")
    audit.check(6, "evidence matches a fresh run with the same seed", fit(model) == read["curve"],
                "every epoch's loss and accuracy")
    audit.check(6, "provenance names this model.py", read["provenance"]["model_sha256"] == sha,
                f"sha256 {sha[:12]}…")
    png = (evidence_dir / "figure.png").read_bytes()[:8]
    audit.check(6, "figure is a PNG", png == b"\x89PNG\r\n\x1a\n", "figure.png signature")
    audit.check(6, "earlier stages passed", not [r for r in read["checks"] if not r["passed"]],
                "every check recorded in evidence.json passed")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--implementation", choices=["starter", "solution"], default="starter")
    parser.add_argument("--stage", type=int, choices=[1, 2, 3, 4, 5, 6], default=6)
    parser.add_argument("--evidence-dir", type=Path, default=Path("runs/train-from-scratch"))
    args = parser.parse_args(argv)
    model = load_model(args.implementation)
    audit = Audit()
    stages: dict[int, Callable[[], None]] = {
        1: lambda: stage1(model, audit), 2: lambda: stage2(model, audit),
        3: lambda: stage3(model, audit), 4: lambda: stage4(model, audit),
        5: lambda: stage5(model, audit),
        6: lambda: stage6(model, audit, args.evidence_dir, args.implementation),
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
