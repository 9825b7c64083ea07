"""Hidden stage checks of project.train-from-scratch: the learner's model.py on hidden spirals,
seeds and parameter pytrees.

Stage 1 (init_params) is called with hidden seeds and sizes and compared with the reference.
For stages 2-5 the grader rebinds model_params and predict to a model of its own, drawn at
grading time (another nesting: tuples, dicts with other keys, a None; another activation), so
a loss, a step, a loop or a checkpoint written for the list-of-layers layout fails, and only
code that works on any parameter pytree passes. Behaviour, not names: train_step must be the
learner's own jitted function, compiled once per model (every hidden call with one hidden size
shares one batch shape), and a run resumed from the learner's checkpoint must equal the run
that never stopped, bit for bit.
"""

import numpy as np

from course.checks import (
    Call,
    CheckFailed,
    FunctionExercise,
    Values,
    check,
    compiles_per_signature,
)

EXERCISE = FunctionExercise(
    "stage5_resume",
    rtol=1e-5,
    atol=1e-6,
    substitutes=("model_params", "predict"),
    rules=(compiles_per_signature(
        "stage 3 compiles train_step once with @jax.jit; the loop calls it with batches of one "
        "shape, so one model compiles it once, however many steps, epochs or resumptions",
        function="train_step", key=lambda call, params: call.args[1],
        title="is jitted once per model, not per step, epoch or call"),),
)
"""Tolerances: stages 3-5 compound float32 rounding over a few Adam steps; 1e-5 relative is far
below what a missed step, another batch order or another key changes. Stage 5 against stage 4
is compared exactly: the same pure steps on the same inputs give the same bits."""

LAYOUTS = (
    ("{'embed': (w1, b1), 'mid': {'kernel': w2, 'bias': b2}, 'head': [w3, b3], 'frozen': None}",
     "w1, b1 = params['embed']\n    h = ACT(x @ w1 + b1)\n"
     "    h = ACT(h @ params['mid']['kernel'] + params['mid']['bias'])\n"
     "    w3, b3 = params['head']\n    return h @ w3 + b3"),
    ("((w1, b1), (w2, b2), {'out': {'w': w3, 'b': b3}})",
     "h = ACT(x @ params[0][0] + params[0][1])\n    h = ACT(h @ params[1][0] + params[1][1])\n"
     "    return h @ params[2]['out']['w'] + params[2]['out']['b']"),
    ("{'layers': [{'w': w1, 'b': b1}, {'w': w2, 'b': b2}], 'readout': (w3, b3), 'extra': ()}",
     "for layer in params['layers']:\n        x = ACT(x @ layer['w'] + layer['b'])\n"
     "    w3, b3 = params['readout']\n    return x @ w3 + b3"),
)
ACTIVATIONS = ("jnp.tanh", "jax.nn.gelu", "jnp.sin")


def substitutes(params: dict, rng: np.random.Generator) -> dict[str, str]:
    """A parameter pytree and a model the learner never saw, drawn now."""
    layout, body = LAYOUTS[int(rng.integers(len(LAYOUTS)))]
    act = ACTIVATIONS[int(rng.integers(len(ACTIVATIONS)))]
    scale = float(np.round(rng.uniform(0.5, 1.5), 3))
    return {
        "model_params": "def model_params(key, hidden):\n"
                        "    k1, k2, k3 = jax.random.split(key, 3)\n"
                        f"    w1 = {scale} * jax.random.normal(k1, (2, hidden))\n"
                        f"    w2 = {scale} * jax.random.normal(k2, (hidden, hidden)) "
                        "/ jnp.sqrt(hidden)\n"
                        "    w3 = jax.random.normal(k3, (hidden, 2)) / jnp.sqrt(hidden)\n"
                        "    b1, b2, b3 = jnp.zeros(hidden), jnp.zeros(hidden), jnp.zeros(2)\n"
                        f"    return {layout}\n",
        "predict": f"def predict(params, x):\n    {body.replace('ACT', act)}\n",
    }


def _spirals(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    label = rng.integers(0, 2, size=n).astype(np.int32)
    r = rng.uniform(0.1, 1.0, size=n)
    angle = 3.0 * np.pi * r + np.pi * label
    x = np.stack([r * np.cos(angle), r * np.sin(angle)], axis=1) + 0.03 * rng.normal(size=(n, 2))
    return x.astype(np.float32), label


def _problem(label: str, seed: int, hidden: int, n: int, rng: np.random.Generator,
             kind: str) -> list[Call]:
    x, y = _spirals(rng, n)
    return [Call(f"{label}: stage 1, init_params", (seed, hidden), kind, "stage1_init"),
            Call(f"{label}: stage 2, loss_fn", (seed, hidden, x, y), kind, "stage2_loss"),
            Call(f"{label}: stage 3, train_step", (seed, hidden, x, y, 3), kind,
                 "stage3_steps"),
            Call(f"{label}: stage 4, train", (seed, hidden, x, y, 2), kind, "stage4_train"),
            Call(f"{label}: stage 5, resumed after epoch 1", (seed, hidden, x, y, 2, 1), kind,
                 "stage5_resume")]


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    """Three problems, three compilations of train_step: about 12 s of CPU for the whole
    hidden run (measured), inside the sandbox's default 20 s CPU and 30 s wall on an idle core."""
    fixed = np.random.default_rng(7)
    found = _problem("the project's model (seed 0, 16 hidden)", 0, 16, 96, fixed, "edge")
    found += _problem("a narrow model, exactly two batches", 5, 4, 64, fixed, "edge")
    found += _problem("a hidden problem", int(rng.integers(0, 2**31 - 1)),
                      int(rng.integers(5, 24)), int(rng.integers(64, 120)), rng, "random")
    return found


def _outputs(v: Values, label: str) -> tuple[np.ndarray, ...] | None:
    results = v.captured.calls.results if v.captured.calls else ()
    for call, result in zip(v.inputs, results, strict=False):
        if call.label == label:
            outputs = result.plain.outputs or ()
            if outputs and all(o.kind == "array" for o in outputs):
                return tuple(np.asarray(o.value) for o in outputs)
    return None


@check("stage 5: the run resumed from your checkpoint equals the straight run, bit for bit",
       points=2)
def resumed_equals_straight(v: Values) -> None:
    problems = sorted({c.label.split(": stage", 1)[0] for c in v.inputs})
    for problem in problems:
        straight = _outputs(v, f"{problem}: stage 4, train")
        resumed = _outputs(v, f"{problem}: stage 5, resumed after epoch 1")
        if straight is None or resumed is None:
            raise CheckFailed(f"on {problem}, train or the resumed run raised or returned no "
                              "arrays")
        v.expect_true(len(straight) == len(resumed) and all(
            a.shape == b.shape and np.array_equal(a, b)
            for a, b in zip(straight, resumed, strict=False)),
            f"on {problem}, the run resumed after epoch 1 ends elsewhere than the run that "
            "never stopped: the checkpoint lost or changed something the next epoch reads "
            "(the optimizer state, the epoch, the key, a leaf's dtype or place in the tree)")
