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


# The suite's order (issue 26), which the xdist workers take files in (scripts/pytest-suite.sh
# passes --no-loadscope-reorder): first the files that mostly wait (servers restarted, pip
# installs, a warm-up, a SIGTERM's grace), while the course's code blocks keep both cores busy
# beside them; then the longest files, so that the run ends on short ones and no core sits idle
# while one file finishes alone; then the rest, most tests first. A name that no longer exists
# fails tests/scripts/test_suite_order.py.
WAIT_FIRST = ("chaos/test_chaos", "lti_service/test_submissions_lease",
              "packaging/test_wheel_extras", "scripts/test_pytest_suite",
              "grader_worker/test_deployed_sandbox", "chaos/test_reload")
LONGEST = ("course/test_build", "grader_worker/test_queue", "course/test_tools",
           "grader_worker/test_limits_parity", "grader_worker/test_seed_pool",
           "grader_worker/test_warm", "e2e/test_e2e_browser", "bench/test_bench_checkpoint_load",
           "grader_worker/test_method_rules_queue", "grader_worker/test_trusted_process",
           "lti_service/test_integrity", "e2e/test_ux_browser", "course/test_forkserver",
           "e2e/test_pages_browser", "bench/test_bench_others", "grader_worker/test_hostile")
RANKED = {name: rank for rank, name in enumerate(WAIT_FIRST + LONGEST)}


def suite_file(item: pytest.Item) -> str:
    """The item's file as WAIT_FIRST and LONGEST name it: its path under tests/, no suffix."""
    return str(item.path).replace("\\", "/").rsplit("/tests/", 1)[-1].removesuffix(".py")


def suite_order(items: list[pytest.Item]) -> list[pytest.Item]:
    """Files in the suite's order (above), each file's tests as collected."""
    counts: dict[str, int] = {}
    for item in items:
        counts[suite_file(item)] = counts.get(suite_file(item), 0) + 1

    def key(item: pytest.Item) -> tuple[int, int, str]:
        name = suite_file(item)
        return RANKED.get(name, len(RANKED)), -counts[name], name

    return sorted(items, key=key)  # stable: a file's own order is kept


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items[:] = suite_order(items)
    live = pytest.mark.live
    for item in items:
        if _live(item):
            item.add_marker(live)
