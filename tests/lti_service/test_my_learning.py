"""My learning: a learner's checkpoint answers and exercise attempts across the LMS course,
exported as one ZIP (index.json, code, receipts) that imports on another deployment."""

from __future__ import annotations

import io
import json
import re
import uuid
import zipfile
from pathlib import Path

import requests
from lti_stack import Stack, build_stack
from sqlalchemy import func, select
from tool_pages import CHECKPOINT, EXERCISE, hidden

from devlms.browser import Browser, forms
from lti_service.core.extensions import state
from lti_service.learner.models import PortfolioImport


def _nav(page: requests.Response, text: str) -> str:
    nav = page.text.split('class="tool-nav"', 1)[1].split("</nav>", 1)[0]
    for href, label in ((h.replace("&amp;", "&"), t) for h, t in
                        (part.split('">', 1) for part in nav.split('href="')[1:])):
        if label.startswith(text):
            return href
    raise AssertionError(f"no {text!r} link in the tool's navigation: {nav}")


def _imports(stack: Stack) -> int:
    with stack.db() as session:
        return session.scalar(select(func.count()).select_from(PortfolioImport)) or 0


def test_my_learning_lists_work_and_its_zip_imports_elsewhere(stack: Stack,
                                                               tmp_path: Path) -> None:
    """On SQLite and PostgreSQL; the other deployment is on SQLite."""
    checkpoint, exercise = stack.deep_link([CHECKPOINT, EXERCISE])
    alice = Browser()
    page = stack.launch(alice, checkpoint["id"], "alice")
    form = next(f for f in forms(page.text)[0] if "checkpoint" in f.attrs.get("class", ""))
    alice.submit(page, form, data={"choice": "b"})
    page = stack.launch(alice, exercise["id"], "alice")
    source = "import jax.numpy as jnp\nx = jnp.arange(4.)\nmasked = x * (jnp.arange(4) < 2)\n"
    submitted = alice.http.post(page.url.split("?")[0] + "/submit",
                                data={**hidden(page, "/submit"), "source": source}, timeout=30)
    assert submitted.status_code == 200, submitted.text[:300]

    mine = alice.get(stack.tool_url + _nav(page, "My learning"))
    assert mine.status_code == 200
    assert 'data-content="arrays-04.checkpoint"' in mine.text
    # the answer as the learner saw it: the letter beside it and its text, not the key "b"
    assert re.search(r"#1 [A-Z]\. [^✓✗<]+ ✗", mine.text), "the letter and text shown"
    assert 'data-content="arrays-04.exercise.mask-tail"' in mine.text and "#1 queued" in mine.text
    # An evidence note, written against the lesson's evidence template.
    assert "Evidence notes for Immutable updates and indexing" in mine.text
    note_url = stack.tool_url + mine.text.split('class="note" method="post" action="', 1)[1].split(
        '"', 1)[0]
    note = "# Evidence\nx stayed [1, 2, 3, 4]; masked kept shape (4,).\n"
    fields = hidden(mine, "/my-learning/notes")
    refused = alice.http.post(note_url, data={**fields, "lesson_id": "arrays-99", "text": "x"},
                              timeout=30)
    assert refused.status_code == 400 and "not part of this LMS course" in refused.text
    saved = alice.http.post(note_url, data={**fields, "lesson_id": "arrays-04", "text": note},
                            timeout=30)
    assert saved.status_code == 200 and "masked kept shape (4,)." in saved.text
    mine = saved
    export = next(h.replace("&amp;", "&") for h in mine.text.split('href="')
                  if h.startswith("/learn/") and ".zip" in h.split('"', 1)[0]).split('"', 1)[0]
    got = alice.http.get(stack.tool_url + export, timeout=30)
    assert got.status_code == 200 and got.headers["Content-Type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(got.content)) as zf:
        index = json.loads(zf.read("index.json"))
        assert zf.read(f"exercises/{EXERCISE}/attempt-1/main.py").decode() == source
        assert zf.read("notes/arrays-04.md").decode() == note
    assert index["format"] == "jax-pathways-portfolio/1" and index["learner"]
    assert [n["file"] for n in index["notes"]] == ["notes/arrays-04.md"]
    assert [c["content_id"] for c in index["checkpoints"]] == [CHECKPOINT]
    assert index["checkpoints"][0]["answers"][0]["choice"] == "b"
    (ex,) = index["exercises"]
    assert ex["attempts"][0]["files"] == [f"exercises/{EXERCISE}/attempt-1/main.py"]

    # Bob sees none of it.
    bob_page = stack.launch(Browser(), checkpoint["id"], "bob")
    bob = requests.get(stack.tool_url + _nav(bob_page, "My learning"), timeout=30)
    assert "No checkpoint answers yet." in bob.text and "No exercise attempts yet." in bob.text

    # Another deployment: the same learner imports the ZIP and My learning lists it.
    other = build_stack(f"sqlite:///{tmp_path / 'other.sqlite3'}", tmp_path / f"o-{uuid.uuid4()}")
    try:
        (link,) = other.deep_link([CHECKPOINT])
        there = Browser()
        launched = other.launch(there, link["id"], "alice")
        page = there.get(other.tool_url + _nav(launched, "My learning"))
        action = other.tool_url + next(
            a for a in re.findall(r'action="([^"]+)"', page.text) if a.endswith("/import"))
        fields = hidden(page, "/my-learning/import")
        no_csrf = there.http.post(action, data={"lt": fields["lt"]}, timeout=30,
                                  files={"portfolio": ("p.zip", got.content)})
        assert no_csrf.status_code == 403 and _imports(other) == 0
        bad = there.http.post(action, data=fields, timeout=30,
                              files={"portfolio": ("p.zip", b"not a zip")})
        assert bad.status_code == 400 and "not a ZIP file" in bad.text and _imports(other) == 0
        done = there.http.post(action, data=fields, timeout=30,
                               files={"portfolio": ("p.zip", got.content)})
        assert done.status_code == 200 and _imports(other) == 1
        assert "Nothing imported." not in done.text
        imported = done.text.split('id="imported">Imported work</h2>', 1)[1]
        # another devlms: another LMS issuer, so the import is labelled, not silently taken
        assert "Not confirmed as yours: exported by" in imported
        assert "checkpoint score 0" in imported and "1 attempt(s)" in imported
        assert "2 file(s)" in imported and "evidence notes" in imported
    finally:
        other.tool_server.stop()
        other.lms_server.stop()
        state(other.tool).engine.dispose()
