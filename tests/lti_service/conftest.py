"""Fixtures for the tool service: a real tool and a real devlms (lti1p3platform) on loopback.

``stack`` runs both as live HTTP servers in threads, so JWKS fetches, token requests, AGS score
posts and NRPS calls really cross HTTP. ``database_url`` is SQLite, or (param ``postgres``) a
fresh PostgreSQL database created from TEST_DATABASE_URL for the test and dropped after it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from lti_stack import Stack, build_stack
from sqlalchemy.engine import make_url

from lti_service.extensions import state


def _pg_admin(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@pytest.fixture
def fresh_postgres(postgres_url: str) -> Iterator[str]:
    name = "pw_lti_" + uuid.uuid4().hex[:10]
    admin = _pg_admin(postgres_url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = make_url(postgres_url).set(database=name).render_as_string(hide_password=False)
    yield url
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def any_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'tool.sqlite3'}"
    return request.getfixturevalue("fresh_postgres")


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'tool.sqlite3'}"


@pytest.fixture
def stack(any_database_url: str, tmp_path: Path) -> Iterator[Stack]:
    s = build_stack(any_database_url, tmp_path)
    yield s
    s.tool_server.stop()
    s.lms_server.stop()
    state(s.tool).engine.dispose()


@pytest.fixture
def sqlite_stack(sqlite_url: str, tmp_path: Path) -> Iterator[Stack]:
    s = build_stack(sqlite_url, tmp_path)
    yield s
    s.tool_server.stop()
    s.lms_server.stop()
    state(s.tool).engine.dispose()
