"""Hidden checks for randomness-04.exercise.resume-exact: resume_run(seed, x, y, stop_at).

Three epochs of Adam on a linear model, with the whole state put through the learner's
save_state / load_state (bytes) after epoch stop_at. Behaviour, not names: for each hidden
problem the run that stopped and resumed must equal the run that never stopped, bit for bit,
and both must equal the reference. A checkpoint that drops Adam's moments, resets the epoch or
makes a new key leaves the straight trajectory.
"""

import numpy as np

from course.checks import CheckFailed, Call, FunctionExercise, Values, check

EXERCISE = FunctionExercise(
    "resume_run",
    params={"lr": (0.05, 0.1, 0.02)},
    rtol=1e-5,
    atol=1e-6,
)
STOPS = (-1, 1, 2)
"""-1: never stopped (the straight run); 1, 2: a checkpoint after that many epochs."""


def _problem(rng: np.random.Generator, n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    x = rng.normal(size=(n, d)).astype(np.float32)
    return x, (x @ rng.normal(size=d) + 0.1 * rng.normal(size=n)).astype(np.float32)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    fixed = np.random.default_rng(4)
    x, y = _problem(fixed, 24, 2)
    found = [Call(f"the lesson's problem, stop {s}", (0, x, y, s)) for s in STOPS]
    x, y = _problem(fixed, 13, 3)
    found += [Call(f"a partial last batch, stop {s}", (9, x, y, s)) for s in STOPS]
    # Drawn in the fixed problems' shapes, with fresh seeds and values: each new shape is a
    # compilation (plain, under jit and traced) of three epochs of Adam (issue 23).
    for i, (n, d) in enumerate(((24, 2), (13, 3))):
        seed, (x, y) = int(rng.integers(0, 2**31 - 1)), _problem(rng, n, d)
        found += [Call(f"hidden problem {i}, stop {s}", (seed, x, y, s), "random")
                  for s in STOPS]
    return found


@check("a run resumed from your checkpoint equals the run that never stopped, bit for bit",
       points=2)
def resumed_equals_straight(v: Values) -> None:
    results = v.captured.calls.results if v.captured.calls else ()
    runs: dict[str, dict[int, tuple]] = {}
    for call, result in zip(v.inputs, results, strict=False):
        outputs = result.plain.outputs or ()
        if len(outputs) != 2 or any(o.kind != "array" for o in outputs):
            raise CheckFailed(f"on {call.label}, resume_run raised or did not return (w, b)")
        problem = call.label.rsplit(", stop ", 1)[0]
        runs.setdefault(problem, {})[call.args[3]] = tuple(np.asarray(o.value) for o in outputs)
    for problem, by_stop in runs.items():
        straight = by_stop[-1]
        for stop, outputs in by_stop.items():
            v.expect_true(all(np.array_equal(a, b) for a, b in zip(outputs, straight,
                                                                   strict=True)),
                          f"on {problem}, the run resumed after epoch {stop} ends at other "
                          "parameters than the straight run: the checkpoint lost something the "
                          "next epoch reads (Adam's state, the epoch, the key)")
