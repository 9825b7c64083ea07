"""A small real course (content model objects) for the service tests, written to a tmp tree."""

from __future__ import annotations

from pathlib import Path

from course.model import (
    BuildStep,
    Checkpoint,
    Choice,
    Course,
    Exercise,
    Figure,
    Lesson,
    Phase,
    Section,
)


def make_course(root: Path) -> Course:
    lesson_dir = root / "phases/01-arrays/04-immutable-updates-and-indexing"
    (lesson_dir / "figure").mkdir(parents=True, exist_ok=True)
    (lesson_dir / "code").mkdir(parents=True, exist_ok=True)
    png = lesson_dir / "figure/figure.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 16)
    main = "import jax.numpy as jnp\nx = jnp.array([1., 2., 3., 4.])\nprint('Original:', x)\n"
    (lesson_dir / "code/main.py").write_text(main)
    checkpoint = Checkpoint(
        id="arrays-04.checkpoint",
        question="After y = x.at[1].set(20.), what happens to x?",
        choices=(
            Choice("a", "x is unchanged", True, "Right: .at[].set returns a new array."),
            Choice("b", "x[1] becomes 20", False, "No: JAX arrays are immutable values."),
            Choice("c", "It raises an error", False, "No: the functional update is allowed."),
        ),
        explanation="Indexed updates return new values; the old array stays available.",
    )
    exercise = Exercise(
        id="arrays-04.exercise.mask-tail", slug="mask-tail", kind="exercise",
        title="Mask the tail", prompt="Zero the last two entries with a mask.",
        guide=("jnp.where(cond, x, 0.) — keeps shape",), plan=("Build a mask", "Apply it"),
        hints=(), reasoning="A mask keeps the shape fixed.", starter_code="masked = None\n",
        solution_code="masked = x * (jnp.arange(4) < 2)\n",
        checks_path=lesson_dir / "exercises/mask-tail/checks.py", max_points=3.0,
    )
    lesson = Lesson(
        id="arrays-04", slug="04-immutable-updates-and-indexing", phase_id="01-arrays", order=4,
        title="Immutable updates and indexing", revision="v0.7.0", minutes=45, hardware="cpu",
        summary="Functional indexed updates.", prerequisites=(), objectives=("Predict set/add",),
        problem="You want to replace a few entries.",
        sections=(Section("The idea", "An indexed update returns a new array value."),),
        figure=Figure(script_path=lesson_dir / "figure/make_figure.py", image_path=png,
                      data_path=lesson_dir / "figure/data.json", alt="Two arrows from x",
                      caption="An update returns a new array", predict="Which cells change?",
                      reading=(), provenance=None),
        steps=(BuildStep(1, "step-1", "Set up", "Make x.", main, ("jnp.array",), "Inputs."),),
        main_path=lesson_dir / "code/main.py", main_code=main,
        expected_output="Original: [1. 2. 3. 4.]", receipt=None, experiments=(),
        exercises=(exercise,), checkpoint=checkpoint, diagnose="Check the index.",
        carry_forward=("Updates are values",), evidence_template="# Evidence\n", references=(),
        dir=lesson_dir,
    )
    phase = Phase(id="01-arrays", number=1, title="Arrays", summary="Arrays.", lessons=(lesson,),
                  project=None)
    return Course(title="JAX Pathways (test)", version="0.0-test", root=root, phases=(phase,))
