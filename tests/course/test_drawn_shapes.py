"""Every function exercise's drawn calls (kind "random") reuse the shapes of its fixed calls.

A grading draws its calls from a fresh seed, and each new shape of a hidden input is compiled
three times in the learner's run (called plain, under ``jit``, traced for its jaxpr), where
no cache may hold it (docs/SANDBOX.md). Random sizes made arrays-02 keep-bfloat16's hidden
calls cost ~1.0 s of a 3.8 s reference run; drawn in the fixed calls' shapes, ~0.2 s
(bench/README.md, "Drawn calls in the fixed calls' shapes", issue 23). The fixed calls already
vary the shape (a hard-coded size fails one of them), so a drawn call varies the values and the
seed-dependent choices, not the compilations. Deterministic and cheap: no program runs.
"""

from __future__ import annotations

import numpy as np
import pytest

from course.checks import Call, compile_signature, load_suite
from course.variants import variant_space
from tests.packaged import packaged_course

SEEDS = range(16)
"""Enough grading seeds to see every shape a draw picks from a handful."""

OWN_SHAPES: dict[str, str] = {}
"""exercise id -> why its drawn calls need shapes of their own (none today)."""


def signature(call: Call, static: tuple[int, ...]) -> tuple:
    """The grader's own compile signature (``course.checks.compile_signature``: what the
    ``compiles_per_signature`` rule counts), with the function called."""
    return (call.function, compile_signature(call, static))


def _function_exercises() -> list:
    return [pytest.param(e, id=e.id) for _, e in packaged_course().exercises() if e.function]


@pytest.mark.parametrize("exercise", _function_exercises())
def test_drawn_calls_reuse_the_fixed_calls_shapes(exercise) -> None:  # noqa: ANN001
    if exercise.id in OWN_SHAPES:
        pytest.skip(f"{exercise.id} draws shapes of its own: {OWN_SHAPES[exercise.id]}")
    suite = load_suite(exercise.checks_path)
    static = tuple(suite.function.static_argnums)
    for variant in variant_space(suite.function.params or {}):
        for seed in SEEDS:
            calls = suite.calls(dict(variant), seed)
            fixed = {signature(c, static) for c in calls if c.kind == "edge"}
            new = [c.label for c in calls
                   if c.kind == "random" and signature(c, static) not in fixed]
            assert not new, (f"{exercise.id} {dict(variant)} seed {seed}: drawn in a shape no "
                             f"fixed call has: {new}")


def test_a_draw_in_a_new_shape_is_refused() -> None:
    """The signature tells a new shape, dtype or static value from a new value."""
    a = Call("a", (np.zeros((2, 3), np.float32), 4))
    assert signature(Call("b", (np.ones((2, 3), np.float32), 4), "random"), (1,)) == \
        signature(a, (1,))
    for other in (Call("c", (np.zeros((3, 3), np.float32), 4), "random"),
                  Call("d", (np.zeros((2, 3), np.float64), 4), "random"),
                  Call("e", (np.zeros((2, 3), np.float32), 5), "random")):
        assert signature(other, (1,)) != signature(a, (1,))
    assert signature(Call("f", (np.zeros((2, 3), np.float32), 5)), ()) == signature(a, ())
