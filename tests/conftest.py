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
