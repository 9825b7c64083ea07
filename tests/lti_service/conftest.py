"""Fixtures for the tool service: a real tool and a real devlms (lti1p3platform) on loopback.

``stack`` runs both as live HTTP servers in threads, so JWKS fetches, token requests, AGS score
posts and NRPS calls really cross HTTP. ``database_url`` is SQLite, or (param ``postgres``) a
fresh PostgreSQL database created from TEST_DATABASE_URL for the test and dropped after it.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from flask import Flask
from flask.testing import FlaskClient
from lti_course import make_course
from lti_stack import Stack, build_stack
from sqlalchemy.engine import make_url
from unit_launch import Platform, platform_keys

from lti_service import create_app
from lti_service.core.db import make_engine, make_session_factory, upgrade
from lti_service.core.extensions import state
from lti_service.lti.service import keys
from lti_service.lti.service.platforms import add_platform

# The processes the tests start (`pathways consumer`, the web under gunicorn) read the operator's
# outbound policy from their environment: devlms is on loopback.
os.environ.setdefault("OUTBOUND_ALLOW_PRIVATE", "1")


def _pg_admin(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


# A test's database starts as a copy of the schema migrated once per session (SQLite: a file;
# PostgreSQL: a template database), not migrated by Alembic again for each test (~0.3 s of CPU
# a database). Migrating from empty is tested where it is the subject (test_cli's `db upgrade`).
# No tool key is in either: each tool makes its own, as a new install does.
@pytest.fixture(scope="session")
def migrated_schema(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("schema") / "schema.sqlite3"
    upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def postgres_template(postgres_url: str) -> Iterator[str]:
    name = "pw_lti_tpl_" + uuid.uuid4().hex[:10]
    admin = _pg_admin(postgres_url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    upgrade(make_url(postgres_url).set(database=name).render_as_string(hide_password=False))
    yield name
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def fresh_postgres(postgres_url: str, postgres_template: str) -> Iterator[str]:
    name = "pw_lti_" + uuid.uuid4().hex[:10]
    admin = _pg_admin(postgres_url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{postgres_template}"')
    url = make_url(postgres_url).set(database=name).render_as_string(hide_password=False)
    yield url
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def any_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return request.getfixturevalue("sqlite_url")
    return request.getfixturevalue("fresh_postgres")


@pytest.fixture
def sqlite_url(tmp_path: Path, migrated_schema: Path) -> str:
    shutil.copyfile(migrated_schema, tmp_path / "tool.sqlite3")
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


@pytest.fixture
def real_stack(sqlite_url: str, tmp_path: Path) -> Iterator[Stack]:
    """The live stack serving the packaged course (its real lessons, exercises and variants)."""
    s = build_stack(sqlite_url, tmp_path, packaged_course=True)
    yield s
    s.tool_server.stop()
    s.lms_server.stop()
    state(s.tool).engine.dispose()


# Unit-level fixtures (flaskr-style): the app on a copy of a once-migrated SQLite file, Flask's
# test client, and a registered platform whose launches ``unit_launch.launch`` signs. No tool or
# LMS server; use ``stack`` only for flows that must cross HTTP to devlms (AGS, NRPS, deep links).
@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory, migrated_schema: Path) -> Path:
    path = tmp_path_factory.mktemp("schema") / "migrated.sqlite3"
    shutil.copyfile(migrated_schema, path)
    url = f"sqlite:///{path}"
    engine = make_engine(url)
    with make_session_factory(engine)() as session:
        keys.current_key(session)  # the tool's RSA key, made once rather than at each login
        session.commit()
    engine.dispose()
    return path


@pytest.fixture
def app(migrated_sqlite: Path, tmp_path: Path) -> Iterator[Flask]:
    db_file = tmp_path / "tool.sqlite3"
    shutil.copyfile(migrated_sqlite, db_file)
    tool = create_app({
        "database_url": f"sqlite:///{db_file}", "var_dir": tmp_path / "var",
        "secret_key": "unit-" + uuid.uuid4().hex, "tool_base_url": "http://localhost",
        "outbound_allow_private": True,  # the platform key set is on loopback
        "course": make_course(tmp_path / "content"),
    })
    tool.config["TESTING"] = True
    yield tool
    state(tool).engine.dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def platform(app: Flask) -> Iterator[Platform]:
    with platform_keys() as registered:
        with state(app).sessions() as session:
            add_platform(session, **registered.registration_args())
            session.commit()
        yield registered
