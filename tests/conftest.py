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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    live = pytest.mark.live
    for item in items:
        if _live(item):
            item.add_marker(live)
