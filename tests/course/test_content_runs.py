"""Every code block of every lesson runs and reproduces its recorded output.

Parametrized over the loaded course, so a new lesson (or experiment, or exercise) is covered
without touching this file. Ids read like ``arrays-04/experiment/name-rebinding``. The selected
items are run as `pathways course check` runs them, two at a time, from the end of collection
on, in the background, while the rest of the suite runs (tests/course/content_background.py);
these tests run last and each waits for its own item's result.
"""

from __future__ import annotations

from concurrent.futures import Future

import pytest

from course import ContentError, load_course
from course.tools.checking import Item, ItemResult, plan


def _params() -> list:
    try:
        course = load_course()
    except ContentError as exc:
        return [pytest.param(str(exc), id="course-content-is-invalid")]
    return [pytest.param(item, id=item.id) for item in plan(course)]


@pytest.mark.slow
@pytest.mark.parametrize("item", _params())
def test_item_runs_and_matches_its_record(item: Item | str,
                                          content_results: dict[str, Future[ItemResult]]):
    if isinstance(item, str):
        pytest.fail(f"the course does not load, so its code cannot be checked:\n{item}")
    result = content_results[item.id].result()
    assert result.item.id == item.id
    assert result.ok, f"{item.id}: {result.detail}"
