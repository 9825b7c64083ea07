"""Answers a learner would give: the right choice of a parametrised checkpoint depends on the
variant their page shows, so it is read from the page's question, not assumed."""

from __future__ import annotations

from course.variants import variant_space
from tests.packaged import packaged_course


def right_choice(lesson_id: str, shown: str) -> str:
    """The correct key of ``lesson_id``'s checkpoint in the variant whose question ``shown``
    (the page's text) holds."""
    lesson = packaged_course().lesson(lesson_id)
    assert lesson is not None
    checkpoint = lesson.checkpoint
    for variant in variant_space(checkpoint.param_space):
        seen = checkpoint.for_variant(variant)
        if " ".join(seen.question.split()) in " ".join(shown.split()):
            [key] = seen.correct_keys
            return key
    raise AssertionError(f"no variant of {checkpoint.id}'s question on the page")
