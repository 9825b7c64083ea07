"""What a learner uploads for an exercise (docs/CONTRACTS.md section 2)."""

from __future__ import annotations

from course.model import Exercise, Lesson


def submission_for(lesson: Lesson, exercise: Exercise, code: str) -> str:
    """The lesson's ``code/main.py`` with ``code`` appended, as the seed tells learners to do.

    Used to grade the reference solution and the starter exactly as a learner's upload. A
    standalone exercise (a project's model.py) is submitted whole.
    """
    if exercise.standalone:
        return code
    main = lesson.main_code.rstrip("\n")
    marker = f"# --- {exercise.kind}: {exercise.title} ({exercise.id}) ---"
    return f"{main}\n\n\n{marker}\n{code.strip(chr(10))}\n"
