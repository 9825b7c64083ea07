"""The live exercise panel in Chromium: two submissions from one page are two attempts (the
page makes a new request key after each), and the same request sent twice is one."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from sqlalchemy import func, select

from devlms.browser import Browser
from grading_contract.config import QueueConfig
from grading_contract.queues import Queues
from lti_service.submissions.models import Submission
from lti_service.submissions.panel import QUEUES_KEY

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "lti_service"))  # the service tests' loopback stack
from lti_stack import build_stack  # noqa: E402

pytestmark = pytest.mark.browser
EXERCISE = "arrays-04.exercise.mask-tail"


def test_each_submission_from_the_live_page_counts_and_a_repeat_does_not(
        tmp_path: Path, open_browser) -> None:  # type: ignore[no-untyped-def]
    stack = build_stack(f"sqlite:///{tmp_path / 'tool.sqlite3'}", tmp_path)
    stack.tool.extensions[QUEUES_KEY] = Queues(QueueConfig(
        var_dir=tmp_path / "q", redis_url=None, queue_prefix="keys-", grading_key=b"k" * 32))
    try:
        link = stack.deep_link([EXERCISE], max_attempts=5)[0]["id"]
        launched = stack.launch(Browser(), link, "alice")  # the tool's page URL, with its token
        assert launched.status_code == 200
        page = open_browser(third_party_cookies=True).new_page()
        page.goto(launched.url)
        attempts = page.locator("article.attempt")
        for n in (1, 2):
            page.locator("#submit-form button[type=submit]").click()
            # A locator wait, not wait_for_function: the page's CSP refuses eval'd predicates.
            attempts.nth(n - 1).wait_for(timeout=120_000)
        assert attempts.count() == 2
        # The same request twice (a double click that got through, a client retry): one row.
        statuses = page.evaluate("""async () => {
            const form = document.getElementById('submit-form');
            const body = new FormData(form);
            const send = () => fetch(form.action, {method: 'POST', body,
                headers: {Accept: 'application/json'}}).then(r => r.json());
            const [a, b] = [await send(), await send()];
            return [a.id === b.id, a.attempt_number];
        }""")
        assert statuses == [True, 3]
        with stack.db() as session:
            assert session.scalar(select(func.count()).select_from(Submission)) == 3
    finally:
        stack.tool_server.stop()
        stack.lms_server.stop()
