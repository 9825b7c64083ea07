"""Fixtures every test package shares: the real servers that scripts/test.sh starts."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """A PostgreSQL server on loopback (started by scripts/test.sh / deploy/local/services.sh)."""
    url = os.environ.get("TEST_DATABASE_URL")
    if not url:
        pytest.fail("TEST_DATABASE_URL is not set: run the tests with `make test`")
    return url


@pytest.fixture(scope="session")
def redis_url() -> str:
    """A Redis server on loopback (started by scripts/test.sh / deploy/local/services.sh)."""
    url = os.environ.get("TEST_REDIS_URL")
    if not url:
        pytest.fail("TEST_REDIS_URL is not set: run the tests with `make test`")
    return url


# `make test-fast` (issue 26): the inner loop a developer runs before pushing, `-m "not live"`.
# A test is "live" when it starts servers, a browser or JAX runs: by the fixtures it uses, or
# by where it lives. Nothing to remember when writing a test: use the cheap `app`/`client`
# fixtures and it is in the fast set.
LIVE_FIXTURES = frozenset({"stack", "sqlite_stack", "real_stack", "postgres_url", "redis_url",
                           "fresh_postgres", "any_database_url"})
LIVE_PLACES = ("tests/e2e/", "tests/chaos/", "tests/deploy/", "tests/bench/", "tests/packaging/",
               "tests/grader_worker/", "tests/devlms/", "tests/course/")
FAST_COURSE = ("test_schemas.py", "test_loader.py", "test_render.py", "test_values_bounds.py")


def _live(item: pytest.Item) -> bool:
    path = str(item.path).replace("\\", "/")
    if any(place in path for place in LIVE_PLACES):
        return not (path.split("/tests/", 1)[-1].startswith("course/")
                    and item.path.name in FAST_COURSE)
    if LIVE_FIXTURES.intersection(getattr(item, "fixturenames", ())):
        return True
    return any(item.get_closest_marker(name) for name in ("browser", "slow", "postgres", "redis"))


def file_order(files: list[tuple[str, int, bool]]) -> list[str]:
    """The order the xdist workers take whole test files in (``--dist loadfile
    --no-loadscope-reorder``, scripts/pytest-suite.sh): (file, tests, waits) in, files out.

    Files marked ``waits`` first: they mostly wait on clocks, faults and servers, and early in
    the run the course's background runs (tests/course/content_background.py, idle-class) use
    the cores they leave; at the end nothing does, and a core idled (2026-12-07: 88-120 core
    seconds in the last ~6 minutes, beside the chaos tests and a SIGTERM test). Then, as
    xdist orders by default, the files with more tests first. Stable otherwise."""
    ranked = sorted(enumerate(files), key=lambda f: (not f[1][2], -f[1][1], f[0]))
    return [name for _, (name, _, _) in ranked]


@pytest.hookimpl(tryfirst=True)  # before tests/course/conftest.py moves its content runs last
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    live = pytest.mark.live
    tests: dict[str, int] = {}
    waiting: set[str] = set()
    for item in items:
        if _live(item):
            item.add_marker(live)
        tests[item.location[0]] = tests.get(item.location[0], 0) + 1
        if item.get_closest_marker("waits") is not None:
            waiting.add(item.location[0])
    rank = {name: i for i, name in enumerate(file_order(
        [(name, n, name in waiting) for name, n in tests.items()]))}
    items.sort(key=lambda item: rank[item.location[0]])
