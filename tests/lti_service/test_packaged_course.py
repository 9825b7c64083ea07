"""The service with the real course content (course.load_course), not the test course."""

from __future__ import annotations

from pathlib import Path

import pytest
from lti_stack import build_stack

from course import ContentError
from devlms.browser import Browser
from lti_service.core.extensions import state
from tests.packaged import packaged_course


def test_real_lesson_in_the_lms(sqlite_url: str, tmp_path: Path) -> None:
    try:
        course = packaged_course()
    except ContentError as exc:  # the content's own tests report it; nothing to serve here
        pytest.skip(f"course content does not load yet: {str(exc).splitlines()[0]}")
    lesson = course.lessons()[0]
    stack = build_stack(sqlite_url, tmp_path, packaged_course=True)
    try:
        links = stack.deep_link([lesson.id, lesson.checkpoint.id])
        assert len(links) == 2
        page = stack.launch(Browser(), links[1]["id"], "alice")
        assert page.status_code == 200, page.text[:300]
        assert lesson.title in page.text
        assert 'class="checkpoint live"' in page.text
    finally:
        stack.tool_server.stop()
        stack.lms_server.stop()
        state(stack.tool).engine.dispose()
