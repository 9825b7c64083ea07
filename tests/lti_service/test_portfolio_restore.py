"""My learning's import restores what the export holds (issue 24): evidence notes go back into
the learner's own notes (never over a different one), the same export twice changes nothing,
another learner's export from the same LMS is refused and one that cannot be confirmed is
labelled. Through the real app and database (the unit fixtures of ``test_lesson_submit``)."""

from __future__ import annotations

import io
import json
import re
import zipfile
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select
from test_lesson_submit import app
from unit_launch import LEARNER, Platform, launch

from lti_service.core.errors import ServiceError
from lti_service.core.extensions import state
from lti_service.core.models import LmsUser
from lti_service.learner.models import EvidenceNote, PortfolioImport
from lti_service.learner.service.portfolio_import import FORMAT
from lti_service.learner.service.portfolio_restore import import_zip

__all__ = ["app"]
NOTE = "Predicted (3,) and got (3,): the mask keeps the shape.\n"
CODE = "import jax.numpy as jnp\nprint(jnp.arange(3))\n"


def _export(issuer: str, sub: str, note: str = NOTE) -> bytes:
    index: dict[str, Any] = {
        "format": FORMAT, "learner": "Alice", "course": "JAX 101", "tool": "https://old",
        "identity": {"issuer": issuer, "sub": sub},
        "notes": [{"lesson_id": "arrays-04", "title": "Arrays", "file": "notes/arrays-04.md"}],
        "lessons_opened": [], "checkpoints": [],
        "exercises": [{"content_id": "arrays-04.exercise.mask-tail", "title": "Mask",
                       "attempts": [{"attempt": 1, "status": "graded", "score": 3.0,
                                     "max_score": 3.0, "feedback": "ok",
                                     "files": ["exercises/m/attempt-1/main.py",
                                               "exercises/m/attempt-1/receipt.json"]}],
                       "best": 3.0, "max_score": 3.0}]}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("index.json", json.dumps(index))
        zf.writestr("notes/arrays-04.md", note)
        zf.writestr("exercises/m/attempt-1/main.py", CODE)
        zf.writestr("exercises/m/attempt-1/receipt.json", json.dumps({"score": 3.0}))
    return out.getvalue()


def _counts(app: Flask) -> tuple[int, int, list[str]]:
    with state(app).sessions() as session:
        return (session.scalar(select(func.count()).select_from(PortfolioImport)) or 0,
                session.scalar(select(func.count()).select_from(EvidenceNote)) or 0,
                [n.text for n in session.scalars(select(EvidenceNote))])


def _import(app: Flask, sub: str, data: bytes):  # type: ignore[no-untyped-def]
    with state(app).sessions() as session:
        user = session.scalar(select(LmsUser).where(LmsUser.sub == sub))
        outcome = import_zip(session, user, data)
        session.commit()
        return outcome.new, outcome.notes_restored, outcome.row.identity


def test_an_own_export_restores_notes_and_twice_changes_nothing(
        app: Flask, client: FlaskClient, platform: Platform) -> None:
    launch(client, platform, sub="alice", role=LEARNER, context_id="course-1",
           content_id="arrays-04")
    data = _export(platform.issuer, "alice")
    assert _import(app, "alice", data) == (True, 1, "")
    assert _counts(app) == (1, 1, [NOTE.strip()])
    assert _import(app, "alice", data) == (False, 0, "")
    assert _counts(app) == (1, 1, [NOTE.strip()]), "the same ZIP twice changes nothing"
    # A note written here is never overwritten: the imported one is added once, marked.
    other = _export(platform.issuer, "alice", note="Second thoughts.\n")
    assert _import(app, "alice", other)[:2] == (True, 1)
    (text,) = _counts(app)[2]
    assert text.startswith(NOTE.strip()) and text.endswith("Second thoughts.")
    assert "imported from My learning" in text
    assert _import(app, "alice", other)[:2] == (False, 0)


def test_another_learners_export_is_refused_and_an_unconfirmed_one_labelled(
        app: Flask, client: FlaskClient, platform: Platform) -> None:
    for sub in ("alice", "bob"):
        launch(client, platform, sub=sub, role=LEARNER, context_id="course-1",
               content_id="arrays-04")
    with pytest.raises(ServiceError, match="another learner of this LMS"):
        _import(app, "bob", _export(platform.issuer, "alice"))
    assert _counts(app)[:2] == (0, 0)
    new, _, label = _import(app, "bob", _export("https://another-lms.example", "alice"))
    assert new and label.startswith("Not confirmed as yours: exported by Alice on another LMS")


def test_my_learning_lists_imported_code_and_opens_it_for_its_owner_only(
        app: Flask, client: FlaskClient, platform: Platform) -> None:
    token, pid = launch(client, platform, sub="alice", role=LEARNER, context_id="course-1",
                        content_id="arrays-04")
    bob_token, bob_pid = launch(client, platform, sub="bob", role=LEARNER,
                                context_id="course-1", content_id="arrays-04")
    _import(app, "alice", _export(platform.issuer, "alice"))
    page = client.get(f"/learn/{pid}/my-learning", query_string={"lt": token})
    links = re.findall(r'href="([^"]*/my-learning/imported/[^"]+)"', page.get_data(as_text=True))
    code = next(link for link in links if "main.py" in link).replace("&amp;", "&")
    shown = client.get(code)
    assert shown.status_code == 200
    assert "print(jnp.arange(3))" in shown.get_data(as_text=True)
    assert any("receipt.json" in link for link in links), "the receipt is viewable too"
    # Bob, with his own launch, cannot open Alice's import (not found, not forbidden).
    path = code.split("?")[0].replace(f"/learn/{pid}/", f"/learn/{bob_pid}/")
    assert client.get(path, query_string={"lt": bob_token}).status_code == 404
    missing = code.replace("main.py", "nope.py")
    assert client.get(missing).status_code == 404
