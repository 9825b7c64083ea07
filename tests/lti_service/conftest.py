"""Fixtures for the tool service: a real tool and a real devlms (lti1p3platform) on loopback.

``stack`` runs both as live HTTP servers in threads, so JWKS fetches, token requests, AGS score
posts and NRPS calls really cross HTTP. ``database_url`` is SQLite, or (param ``postgres``) a
fresh PostgreSQL database created from TEST_DATABASE_URL for the test and dropped after it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
import requests
from flask import Flask
from lti_course import make_course
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from devlms import DevLmsConfig, Store
from devlms import create_app as create_lms
from devlms.browser import Browser
from devlms.server import LiveServer, free_port
from lti_service import create_app
from lti_service.db import upgrade
from lti_service.extensions import state
from lti_service.services.platforms import add_platform


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


@dataclass
class Stack:
    tool: Flask
    tool_server: LiveServer
    lms_server: LiveServer
    lms_config: DevLmsConfig
    lms_store: Store

    @property
    def tool_url(self) -> str:
        return self.tool_server.url

    @property
    def lms_url(self) -> str:
        return self.lms_server.url

    def db(self) -> Session:
        return state(self.tool).sessions()

    def gradebook(self) -> dict[str, Any]:
        return requests.get(self.lms_url + "/gradebook.json", timeout=10).json()

    def deep_link(self, content_ids: list[str], *, max_attempts: int = 3,
                  counting: str = "best") -> list[dict[str, Any]]:
        """The instructor picks items in the tool's picker; returns devlms's new links."""
        teacher = Browser()
        picker = teacher.get(self.lms_url + "/deep-link?user=teacher")
        assert picker.status_code == 200, picker.text
        assert 'name="content_id"' in picker.text, picker.text[:500]
        before = set(self.lms_store.links)
        done = teacher.submit(picker, data={"content_id": content_ids,
                                            "max_attempts": str(max_attempts),
                                            "counting": counting})
        assert done.status_code == 200, done.text
        return [vars(v) for k, v in self.lms_store.links.items() if k not in before]

    def launch(self, browser: Browser, link_id: str, user: str) -> requests.Response:
        return browser.get(f"{self.lms_url}/launch/{link_id}?user={user}")


def build_stack(database_url: str, tmp_path: Path) -> Stack:
    tool_port, lms_port = free_port(), free_port()
    tool_url, lms_url = f"http://127.0.0.1:{tool_port}", f"http://127.0.0.1:{lms_port}"
    upgrade(database_url)
    lms_config = DevLmsConfig(base_url=lms_url, tool_base_url=tool_url)
    store = Store()
    tool = create_app({
        "database_url": database_url,
        "var_dir": tmp_path / "var",
        "secret_key": "test-secret-" + uuid.uuid4().hex,
        "tool_base_url": tool_url,
        "course": make_course(tmp_path / "content"),
    })
    with state(tool).sessions() as session:
        add_platform(session, deployment_ids=[lms_config.deployment_id],
                     **lms_config.registration_args)
        session.commit()
    tool_server = LiveServer(tool, port=tool_port).start()
    lms_server = LiveServer(create_lms(lms_config, store), port=lms_port).start()
    return Stack(tool, tool_server, lms_server, lms_config, store)


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
