"""Hidden stage checks of project.transforms-fit: the learner's model.py on hidden regression
problems.

loss_grad, train_step (which returns the loss) and per_example_grads are called on problems the
learner never saw, in plain Python and under jax.jit, and compared with the reference: the
problems are drawn from the grading seed, so typed-in numbers cannot pass, and ``predict`` is
replaced by a model drawn at grading time, so hand-derived gradients cannot either. Stage 3's
train_step must be the learner's own jitted function; stage 4 must be one batched program
(vmap), and the per-example gradients must average to the learner's own batch gradient.
"""

import numpy as np

from course.checks import (
    Call,
    CheckFailed,
    FunctionExercise,
    Values,
    check,
    compiles_per_signature,
    vectorised,
)

EXERCISE = FunctionExercise(
    "per_example_grads",
    jit=True,
    jit_feedback="every function of (w, b, x, y) must trace: a Python `if` or a `float(...)` "
                 "on a traced value stops jax.jit",
    rtol=1e-4,
    atol=1e-5,
    substitutes=("predict",),
    rules=(vectorised("stage 4 maps one example's gradient over the batch with jax.vmap; a "
                      "Python loop gives the same numbers slowly"),
           compiles_per_signature("stage 3 compiles train_step with @jax.jit, once per batch "
                                  "shape (the learning rate is traced, not static)",
                                  function="train_step")),
)
FUNCTIONS = ("loss_grad", "train_step", "per_example_grads")
"""``loss`` is not called on its own: ``train_step`` returns the loss before its step, so a
wrong loss already fails there (and one call fewer per problem keeps grading fast)."""


def substitutes(params: dict, rng: np.random.Generator) -> dict[str, str]:
    """A model the learner never saw, drawn now: ``predict`` gains a nonlinear term, so only
    jax.grad of the learner's loss (which calls predict), not gradients derived by hand for a
    linear model, gives its gradients."""
    c = float(np.round(rng.uniform(0.2, 0.8), 3))
    return {"predict": f"def predict(w, b, x):\n    z = x @ w\n"
                       f"    return z + b + {c} * jnp.tanh(z)\n"}


def _problem(rng: np.random.Generator, examples: int, features: int,
             scale: float = 1.0) -> dict[str, np.ndarray]:
    x = (rng.normal(size=(examples, features)) * scale).astype(np.float32)
    y = (x @ rng.normal(size=features) + rng.normal(size=examples)).astype(np.float32)
    return {"w": rng.normal(size=features).astype(np.float32),
            "b": np.float32(rng.normal()), "x": x, "y": y}


def _calls(label: str, p: dict[str, np.ndarray], kind: str, lr: float) -> list[Call]:
    args = (p["w"], p["b"], p["x"], p["y"])
    return [Call(f"{label}, {fn}", args + ((lr,) if fn == "train_step" else ()), kind, fn)
            for fn in FUNCTIONS]  # type: ignore[arg-type]


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    fixed = np.random.default_rng(11)
    one = _problem(fixed, 1, 3)
    zero = _problem(fixed, 6, 2)
    zero["w"], zero["b"] = np.zeros(2, np.float32), np.float32(0.0)
    edge = {"stage 4: a batch of one example": one, "stage 3: parameters at zero": zero,
            "stage 2: one feature, large inputs": _problem(fixed, 5, 1, scale=10.0)}
    drawn = {f"stages 1-4: hidden problem {i}": _problem(rng, int(rng.integers(3, 12)),
                                                         int(rng.integers(1, 5)))
             for i in range(2)}
    lr = float(np.round(rng.uniform(0.01, 0.2), 3))
    return ([c for label, p in edge.items() for c in _calls(label, p, "edge", 0.05)]
            + [c for label, p in drawn.items() for c in _calls(label, p, "random", lr)])


def _outputs(v: Values, label: str, function: str) -> tuple[np.ndarray, ...] | None:
    results = v.captured.calls.results if v.captured.calls else ()
    for call, result in zip(v.inputs, results, strict=False):
        if call.label == f"{label}, {function}":
            outputs = result.plain.outputs or ()
            if outputs and all(o.kind == "array" for o in outputs):
                return tuple(np.asarray(o.value) for o in outputs)
    return None


@check("stage 4: per-example gradients average to your batch gradient", points=2)
def per_example_mean(v: Values) -> None:
    labels = sorted({c.label.rsplit(", ", 1)[0] for c in v.inputs})
    for label in labels:
        rows, batch = _outputs(v, label, "per_example_grads"), _outputs(v, label, "loss_grad")
        if rows is None or batch is None or len(rows) != 2 or len(batch) != 2:
            raise CheckFailed(f"on {label}, per_example_grads or loss_grad raised or did not "
                              "return (dw, db)")
        v.expect_true(rows[0].ndim == 2 and rows[1].ndim == 1,
                      f"on {label}, per_example_grads returned shapes {rows[0].shape}, "
                      f"{rows[1].shape}: one gradient per example needs (examples, features) "
                      "and (examples,)")
        v.expect_true(np.allclose(rows[0].mean(axis=0), batch[0], rtol=1e-4, atol=1e-5)
                      and np.allclose(rows[1].mean(), batch[1], rtol=1e-4, atol=1e-5),
                      f"on {label}, the mean of the per-example gradients is not your batch "
                      "gradient: each row must be the gradient of that example's own squared "
                      "error")
