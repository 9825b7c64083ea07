"""Every code block of every lesson runs and reproduces its recorded output.

Parametrized over the loaded course, so a new lesson (or experiment, or exercise) is covered
without touching this file. Ids read like ``arrays-04/experiment/name-rebinding``. The selected
items run two at a time in the background, forked from a process that has imported JAX, as
`pathways course check` runs them; each test waits for its own item's result.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor

import pytest

from course import ContentError, load_course
from course.tools.checking import Item, ItemResult, plan, run_item
from course.tools.execute import child_env
from course.tools.forkserver import prewarmed

WORKERS = 2


def _params() -> list:
    try:
        course = load_course()
    except ContentError as exc:
        return [pytest.param(str(exc), id="course-content-is-invalid")]
    return [pytest.param(item, id=item.id) for item in plan(course)]


@pytest.fixture(scope="session")
def item_results(request: pytest.FixtureRequest) -> Iterator[dict[str, Future[ItemResult]]]:
    """Futures for exactly the items this pytest run selected, started in test order."""
    selected = [
        test.callspec.params["item"] for test in request.session.items
        if getattr(test, "originalname", "") == "test_item_runs_and_matches_its_record"
        and isinstance(test.callspec.params.get("item"), Item)
    ]
    with prewarmed(child_env()):  # as `pathways course check` runs them
        pool = ThreadPoolExecutor(max_workers=WORKERS)
        futures = {item.id: pool.submit(run_item, item) for item in selected}
        yield futures
        pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.slow
@pytest.mark.parametrize("item", _params())
def test_item_runs_and_matches_its_record(item: Item | str,
                                          item_results: dict[str, Future[ItemResult]]):
    if isinstance(item, str):
        pytest.fail(f"the course does not load, so its code cannot be checked:\n{item}")
    result = item_results[item.id].result()
    assert result.item.id == item.id
    assert result.ok, f"{item.id}: {result.detail}"
