"""The running pair for service tests: the tool and devlms as live loopback servers."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests
from flask import Flask
from lti_course import make_course
from sqlalchemy.orm import Session

from devlms import DevLmsConfig, Store
from devlms import create_app as create_lms
from devlms.browser import Browser
from devlms.server import LiveServer, reserve_port
from lti_service import create_app
from lti_service.core.db import upgrade
from lti_service.core.extensions import state
from lti_service.lti.service import outbound
from lti_service.lti.service.outbound import OutboundPolicy
from lti_service.lti.service.platforms import add_platform


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

    @property
    def rules(self) -> OutboundPolicy:
        """The tool's outbound policy, as its consumer hands it to the outbox."""
        return outbound.policy(state(self.tool).config)

    def gradebook(self) -> dict[str, Any]:
        return requests.get(self.lms_url + "/gradebook.json", timeout=10).json()

    def deep_link(self, content_ids: list[str], *, max_attempts: int = 3,
                  counting: str = "best", code_attempts: int | None = None,
                  ) -> list[dict[str, Any]]:
        """The instructor picks items in the tool's picker; returns devlms's new links."""
        teacher = Browser()
        picker = teacher.get(self.lms_url + "/deep-link?user=teacher")
        assert picker.status_code == 200, picker.text
        assert 'name="content_id"' in picker.text, picker.text[:500]
        before = set(self.lms_store.links)
        done = teacher.submit(picker, data={"content_id": content_ids,
                                            "max_attempts": str(max_attempts),
                                            "code_attempts": "" if code_attempts is None
                                            else str(code_attempts),
                                            "counting": counting})
        assert done.status_code == 200, done.text
        return [vars(v) for k, v in self.lms_store.links.items() if k not in before]

    def launch(self, browser: Browser, link_id: str, user: str) -> requests.Response:
        return browser.get(f"{self.lms_url}/launch/{link_id}?user={user}")


def build_stack(database_url: str, tmp_path: Path, *, packaged_course: bool = False) -> Stack:
    """``packaged_course``: serve the real course/content through course.load_course()."""
    tool_port, lms_port = reserve_port(), reserve_port()
    tool_url, lms_url = f"http://127.0.0.1:{tool_port}", f"http://127.0.0.1:{lms_port}"
    upgrade(database_url)
    lms_config = DevLmsConfig(base_url=lms_url, tool_base_url=tool_url)
    store = Store()
    settings: dict[str, Any] = {
        "database_url": database_url,
        "var_dir": tmp_path / "var",
        "secret_key": "test-secret-" + uuid.uuid4().hex,
        "tool_base_url": tool_url,
        "outbound_allow_private": True,  # devlms is on loopback
    }
    if not packaged_course:
        settings["course"] = make_course(tmp_path / "content")
    tool = create_app(settings)
    with state(tool).sessions() as session:
        add_platform(session, deployment_ids=[lms_config.deployment_id],
                     **lms_config.registration_args)
        session.commit()
    tool_server = LiveServer(tool, port=tool_port).start()
    lms_server = LiveServer(create_lms(lms_config, store), port=lms_port).start()
    return Stack(tool, tool_server, lms_server, lms_config, store)
