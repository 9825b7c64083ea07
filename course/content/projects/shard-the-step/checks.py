"""Hidden stage checks of project.shard-the-step: the learner's model.py on 8 logical devices.

shard_batch, sharded_step, train and shard_map_step are called on regression problems drawn
from the grading seed (their batch divides by 8), and ``predict`` is replaced by a model drawn
at grading time (a tanh term), so only jax.grad of the learner's loss, not a gradient derived by
hand, matches the reference. Tolerance: the data-parallel mean of 8 shard gradients equals the
batch gradient up to float32 reordering, compounded over 3 steps: rtol 1e-4, atol 1e-5. The
method is read from the run: shard_batch's layout, sharded_step's parameters whole on all 8
devices with an all-reduce in its compiled program, and shard_map_step a shard_map holding a
psum (pmean) with an all-reduce and no all-gather.
"""

import numpy as np

from course.checks import Call, FunctionExercise, collectives, per_device, sharded_as

EXERCISE = FunctionExercise(
    "sharded_step",
    jit=False,
    rtol=1e-4,
    atol=1e-5,
    substitutes=("predict",),
    rules=(
        sharded_as("stage 1 places the batch with its first dimension on 'data', P('data')",
                   ("data",), function="shard_batch"),
        sharded_as("stage 2 keeps the parameters whole on every device (P()) while the batch is "
                   "split", (), function="sharded_step"),
        collectives("stage 2's step adds the devices' gradients: an all-reduce in its compiled "
                    "program", require=("all-reduce",), function="sharded_step"),
        per_device("stage 5 writes the step per device with jax.shard_map and averages the "
                   "gradients with jax.lax.pmean", function="shard_map_step"),
        collectives("stage 5 averages gradients with one all-reduce and never gathers the "
                    "batch", require=("all-reduce",), forbid=("all-gather",),
                    function="shard_map_step"),
    ),
)
FUNCTIONS = ("shard_batch", "sharded_step", "train", "shard_map_step")


def substitutes(params: dict, rng: np.random.Generator) -> dict[str, str]:
    c = float(np.round(rng.uniform(0.2, 0.8), 3))
    return {"predict": f"def predict(w, b, x):\n    z = x @ w\n"
                       f"    return z + b + {c} * jnp.tanh(z)\n"}


def _problem(rng: np.random.Generator, examples: int, features: int) -> dict:
    x = rng.normal(size=(examples, features)).astype(np.float32)
    y = (x @ rng.normal(size=features) + rng.normal(size=examples)).astype(np.float32)
    return {"w": rng.normal(size=features).astype(np.float32), "b": np.float32(rng.normal()),
            "x": x, "y": y}


def _calls(label: str, p: dict, kind: str, lr: float) -> list[Call]:
    step = (p["w"], p["b"], p["x"], p["y"], lr)
    args = {"shard_batch": (p["x"],), "sharded_step": step, "train": (*step, 3),
            "shard_map_step": step}
    return [Call(f"{label}, {fn}", args[fn], kind, fn) for fn in FUNCTIONS]  # type: ignore[arg-type]


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    fixed = np.random.default_rng(7)
    one = _problem(fixed, 8, 2)  # one example a device
    zero = _problem(fixed, 16, 3)
    zero["w"], zero["b"] = np.zeros(3, np.float32), np.float32(0.0)
    edge = {"one example a device": one, "parameters at zero": zero}
    drawn = {f"hidden problem {i}": _problem(rng, 8 * int(rng.integers(1, 6)),
                                             int(rng.integers(1, 5))) for i in range(2)}
    lr = float(np.round(rng.uniform(0.01, 0.2), 3))
    return ([c for label, p in edge.items() for c in _calls(label, p, "edge", 0.05)]
            + [c for label, p in drawn.items() for c in _calls(label, p, "random", lr)])
