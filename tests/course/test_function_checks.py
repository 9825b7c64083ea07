"""Function exercises graded for real (harness subprocesses, reference run, trusted checks):
the cheats the issue lists score below full, each with feedback that names the lesson's point."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from course import submission_for
from course.checks import (
    Call,
    FunctionExercise,
    calls_function,
    encode_calls,
    no_item_assignment,
    read_values,
    uses_at_update,
)
from course.checks.functions import find_function
from course.tools.checking import grade_submission
from course.variants import is_variant, render, variant_for, variant_space
from tests.packaged import packaged_course

pytestmark = pytest.mark.usefixtures("warm_runs")


def _grade(exercise_id: str, body: str, tmp: Path, variant: dict | None = None):  # noqa: ANN202
    lesson, exercise = packaged_course().exercise(exercise_id)
    outcomes, _, _ = grade_submission(submission_for(lesson, exercise, body), exercise, tmp, 120,
                                      lesson=lesson, variant=variant)
    return {o.name: o for o in outcomes}, exercise


def _failed(outcomes: dict) -> dict[str, str]:
    return {name: o.feedback for name, o in outcomes.items() if o.status != "passed"}


@pytest.mark.slow
def test_boolean_mask_answer_fails_the_jit_check_with_the_lessons_point(tmp_path: Path):
    outcomes, exercise = _grade("arrays-04.exercise.fixed-shape-mask",
                                "def keep_above(x):\n    return x[x > 2.0]\n", tmp_path)
    failed = _failed(outcomes)
    jit = failed["keep_above works under jax.jit"]
    assert "NonConcreteBooleanIndexError" in jit or "boolean" in jit.lower()
    assert "shapes must be known before values are" in jit
    assert sum(o.points for o in outcomes.values()) < exercise.max_points


@pytest.mark.slow
def test_rebinding_jax_jit_does_not_fool_the_jit_check(tmp_path: Path):
    body = ("import jax\n\njax.jit = lambda f, **kwargs: f\n\n\n"
            "def keep_above(x):\n    return x[x > 2.0]\n")
    outcomes, _ = _grade("arrays-04.exercise.fixed-shape-mask", body, tmp_path)
    failed = _failed(outcomes)
    assert "keep_above works under jax.jit" in failed
    assert sum(o.points for o in outcomes.values()) == 0  # refused: it patches jax
    assert "jax.jit = lambda" in failed["keep_above works under jax.jit"]


@pytest.mark.slow
def test_a_correct_directional_check_written_another_way_gets_full_marks(tmp_path: Path):
    """Forward mode (``jax.jvp``) and the central difference written out round differently
    from ``vdot(grad(wavy)(w), v)`` and step 4's ``central_difference``; the central
    difference amplifies rounding by 1/(2h), which the derived tolerance allows (it lost 2
    points at the old 1e-5)."""
    body = ("def wavy(w):\n    return jnp.sum(jnp.sin(w) * w)\n\n\n"
            "def directional_check(w, v):\n"
            "    autodiff = jax.jvp(wavy, (w,), (v,))[1]\n"
            "    return autodiff, (wavy(w + 1e-3 * v) - wavy(w - 1e-3 * v)) / 2e-3\n")
    _, exercise = packaged_course().exercise("transforms-02.exercise.directional-check")
    outcomes, _ = _grade(exercise.id, body, tmp_path)
    assert _failed(outcomes) == {}


@pytest.mark.slow
def test_numpy_in_place_answer_fails_the_static_checks(tmp_path: Path):
    body = ("import numpy as np\n\n\ndef mask_tail(x):\n    out = np.array(x)\n"
            "    out[-2:] = 0.\n    return jnp.asarray(out)\n")
    outcomes, exercise = _grade("arrays-04.exercise.mask-tail", body, tmp_path, {"n": 2})
    failed = _failed(outcomes)
    assert set(failed) == {"mask_tail updates with .at[...] (a scatter in its program)",
                           "mask_tail does not assign into an array",
                           "mask_tail works under jax.jit"}
    assert "JAX arrays are immutable" in failed["mask_tail does not assign into an array"]
    assert sum(o.points for o in outcomes.values()) < exercise.max_points


@pytest.mark.slow
def test_plain_python_lists_fail_the_kind_of_value_check(tmp_path: Path):
    body = ("def mask_tail(x):\n    values = [float(v) for v in x]\n"
            "    return values[:-2] + [0.0, 0.0]\n")
    outcomes, _ = _grade("arrays-04.exercise.mask-tail", body, tmp_path, {"n": 2})
    failed = _failed(outcomes)
    assert "not a jax.Array" in failed[
        "mask_tail returns the reference's kind of value (jax.Array, dtype)"]


@pytest.mark.slow
def test_three_line_file_without_the_lesson_code_scores_nothing_useful(tmp_path: Path):
    lesson, exercise = packaged_course().exercise("arrays-04.exercise.mask-tail")
    cheat = ("import jax.numpy as jnp\nx = jnp.array([1., 2., 3., 4.])\n"
             "masked = jnp.array([1., 2., 0., 0.])\n")
    outcomes, _, _ = grade_submission(cheat, exercise, tmp_path, 120, lesson=lesson)
    assert sum(o.points for o in outcomes) == 0
    assert "define a function `def mask_tail(...)`" in outcomes[0].feedback


def test_variants_are_stable_spread_and_validated():
    params = {"n": (2, 1, 3), "value": (-1.0, 0.5)}
    space = variant_space(params)
    assert len(space) == 6 and space[0] == {"n": 2, "value": -1.0}
    picks = [variant_for(params, course="c", placement="p", learner=str(i)) for i in range(60)]
    assert picks[7] == variant_for(params, course="c", placement="p", learner="7")
    assert len({tuple(p.items()) for p in picks}) == 6
    assert variant_for(params, course="c", placement="other", learner="7") in space
    assert is_variant(params, {"n": 3, "value": 0.5})
    assert not is_variant(params, {"n": 4, "value": 0.5})
    assert not is_variant(params, {"n": 3})
    assert render("last {{n}} of {{ value }}, {{other}}", {"n": 3, "value": -1.0}) == (
        "last 3 of -1.0, {{other}}")


def test_static_rules_read_only_the_named_function():
    source = ("y = x.at[0].set(1.)\n\n"
              "def f(x):\n    out = np.array(x)\n    out[0] = 1.\n    return out\n")
    fn = find_function(source, "f")
    assert not isinstance(fn, str)
    assert not uses_at_update().holds(fn)  # the module-level .at[] does not count
    assert not no_item_assignment().holds(fn)
    assert calls_function("array", "why").holds(fn)
    assert not calls_function("block_until_ready", "why").holds(fn)
    assert find_function(source, "g") == "there is no top-level `def g(...)`"
    assert "longer than" in find_function("#" * 300_000, "f")
    assert "does not parse" in find_function("def f(:\n", "f")


def test_calls_file_round_trips_through_the_harness(tmp_path: Path):
    """encode_calls -> harness -> read_values: outputs, jit outputs and arguments come back."""
    import os
    import subprocess
    import sys

    from course.checks import HARNESS_PATH

    spec = FunctionExercise("double", jit=True)
    calls = [Call("a", (np.array([1.0, 2.0], np.float32),)),
             Call("b", (np.array([[3.0]], np.float32),), "random")]
    (tmp_path / "calls.bin").write_bytes(encode_calls(spec, calls))
    (tmp_path / "main.py").write_text("import jax.numpy as jnp\n\ndef double(v):\n"
                                      "    return v * 2, 'text'\n")
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    subprocess.run([sys.executable, str(HARNESS_PATH), "--calls", str(tmp_path / "calls.bin"),
                    "--out", str(tmp_path / "values.bin"), str(tmp_path / "main.py")],
                   cwd=tmp_path, env=env, check=True, timeout=120)
    assert not (tmp_path / "calls.bin").exists()  # removed before the program ran
    captured = read_values((tmp_path / "values.bin").read_bytes())
    assert captured.calls is not None and captured.calls.defined
    first = captured.calls.results[0]
    assert first.plain.is_tuple and first.plain.outputs[0].jax_array
    assert np.array_equal(first.plain.outputs[0].value, [2.0, 4.0])
    assert first.plain.outputs[0].dtype == "float32" and first.plain.outputs[1].value == "text"
    assert first.jit is not None and first.jit.error is not None  # a str is not a JAX type
    assert np.array_equal(captured.calls.results[1].inputs_after[0].value, [[3.0]])


def test_harness_facts_are_loaded_before_the_program_can_break_the_loader(tmp_path: Path):
    """harness_facts.py is loaded by path beside harness_calls.py before main.py runs: a
    program that breaks ``importlib`` and ``os.path`` afterwards still gets its trace read."""
    import os
    import shutil
    import subprocess
    import sys

    from course.checks import HARNESS_FILES

    for path in HARNESS_FILES:  # as the sandbox binds them: four files, nothing else
        shutil.copy(path, tmp_path / path.name)
    spec = FunctionExercise("double", jit=True)
    (tmp_path / "calls.bin").write_bytes(
        encode_calls(spec, [Call("a", (np.arange(3, dtype=np.float32),)),
                            Call("b", (np.ones(2, np.float32),), "random")]))
    (tmp_path / "main.py").write_text(
        "import importlib.util\nimport os\n\n\ndef double(v):\n    return v * 2\n\n\n"
        "importlib.util.spec_from_file_location = None\nos.path.dirname = None\n")
    env = {"PATH": os.environ.get("PATH", ""), "JAX_PLATFORMS": "cpu"}
    subprocess.run([sys.executable, "-I", "harness.py", "--calls", "calls.bin", "--out",
                    "values.bin", "main.py"], cwd=tmp_path, env=env, check=True, timeout=120)
    captured = read_values((tmp_path / "values.bin").read_bytes())
    assert captured.calls is not None
    for result in captured.calls.results:
        assert result.plain.error is None
        jaxpr = result.facts.jaxpr
        assert jaxpr is not None and not jaxpr.error and "mul" in jaxpr.primitives
