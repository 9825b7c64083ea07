"""Hidden stage checks of project.arrays-audit: the learner's model.py on hidden padded batches.

Stage 1 (independent calculations): masked_count, masked_mean and masked_variance match the
reference on batches the learner never saw. Stage 2 (changed condition): more padding, another
pad value and an empty row must not move the masked moments (an empty row's are NaN), and the
functions work under jax.jit.
"""

import numpy as np

from course.checks import Call, FunctionExercise, Values, check

EXERCISE = FunctionExercise(
    "masked_variance",
    jit=True,
    jit_feedback="pure functions of (values, mask) with fixed shapes compile; a Python `if` "
                 "on a count or a boolean-mask selection does not",
    rtol=1e-5,
    atol=1e-6,
)
FUNCTIONS = ("masked_count", "masked_mean", "masked_variance")


def _padded(rng: np.random.Generator, rows: int, length: int, pad_value: float,
            empty_row: bool = False) -> tuple[np.ndarray, np.ndarray]:
    counts = rng.integers(1, length + 1, size=rows)
    if empty_row:
        counts[rng.integers(0, rows)] = 0
    mask = (np.arange(length)[None, :] < counts[:, None]).astype(np.float32)
    values = rng.normal(size=(rows, length)).astype(np.float32) * 3
    return np.where(mask > 0, values, np.float32(pad_value)).astype(np.float32), mask


def _stage(function: str, label: str, batch: tuple[np.ndarray, np.ndarray],
           kind: str) -> Call:
    args = (batch[1],) if function == "masked_count" else batch
    return Call(f"{label}, {function}", args, kind, function)  # type: ignore[arg-type]


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    fixed = np.random.default_rng(7)
    edge = {
        "stage 2: heavy padding": _padded(fixed, 3, 12, 0.0),
        "stage 2: pad value 99": _padded(fixed, 3, 6, 99.0),
        "stage 2: an empty row": _padded(fixed, 4, 5, -7.0, empty_row=True),
    }
    drawn = {f"stage 1: hidden batch {i}": _padded(rng, int(rng.integers(2, 6)),
                                                   int(rng.integers(3, 10)),
                                                   float(rng.normal() * 10))
             for i in range(2)}
    return ([_stage(f, label, batch, "edge") for label, batch in edge.items() for f in FUNCTIONS]
            + [_stage(f, label, batch, "random") for label, batch in drawn.items()
               for f in FUNCTIONS])


@check("stage 2: padding never enters a statistic (more padding, another pad value)", points=2)
def padding_invariance(v: Values) -> None:
    results = v.captured.calls.results if v.captured.calls else ()
    v.expect_true(len(results) == len(v.inputs), "the functions were not called")
    for call, result in zip(v.inputs, results, strict=True):
        if call.function != "masked_mean" or "pad value" not in call.label:
            continue
        values, mask = call.args
        outputs = result.plain.outputs or ()
        v.expect_true(len(outputs) == 1 and outputs[0].kind == "array",
                      f"masked_mean raised or returned nothing on {call.label}")
        real = [row[m > 0] for row, m in zip(values, mask, strict=True)]
        want = np.array([r.mean() if r.size else np.nan for r in real])
        v.expect_true(np.allclose(outputs[0].value, want, rtol=1e-5, equal_nan=True),
                      "masked_mean moved when the pad value changed: divide by the mask's "
                      "count and sum only the real entries")
