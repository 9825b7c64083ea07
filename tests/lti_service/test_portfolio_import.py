"""My learning's import, fed a corpus of malformed archives (issue 25, items 3 and 4).

Each is refused with a 400 and a message that says what is wrong, nothing is stored, and My
learning keeps working; a manifest stored before imports were checked is shown as unreadable,
never a 500. Through the real app (the unit fixtures of ``test_lesson_submit``)."""

from __future__ import annotations

import io
import json
import struct
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select
from test_lesson_submit import _fields, _post, app
from unit_launch import LEARNER, Platform, launch

from lti_service.core.errors import ServiceError
from lti_service.core.extensions import state
from lti_service.core.models import LmsUser
from lti_service.learner.models import PortfolioImport
from lti_service.learner.service.portfolio_import import (
    FORMAT,
    MAX_IMPORT_BYTES,
    json_depth,
    read_zip,
)

__all__ = ["app"]  # the unit app, shared with the lesson page's tests
GOOD = {"format": FORMAT, "learner": "Alice", "course": "JAX 101", "tool": "https://other",
        "lessons_opened": [{"lesson_id": "arrays-04", "title": "Arrays", "opens": 2,
                            "first_opened_at": "2026-01-01T10:00:00+00:00",
                            "last_opened_at": "2026-01-02T10:00:00+00:00"}],
        "notes": [], "checkpoints": [{"content_id": "arrays-04.checkpoint", "title": "Check",
                                      "answers": [{"attempt": 1, "choice": "a", "correct": True,
                                                   "at": "2026-01-01T10:00:00+00:00"}],
                                      "score": 1.0}],
        "exercises": [{"content_id": "arrays-04.exercise.mask-tail", "title": "Mask",
                       "attempts": [{"attempt": 1, "status": "graded", "score": 3.0,
                                     "max_score": 3.0, "feedback": "ok",
                                     "at": "2026-01-01T10:00:00+00:00",
                                     "files": ["exercises/m/attempt-1/main.py"]}],
                       "best": 3.0, "max_score": 3.0, "where": "exercise"}]}


def _zip(index: Any = GOOD, files: dict[str, bytes] | None = None, *,
         method: int = zipfile.ZIP_STORED, raw_index: bytes | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", method) as zf:
        zf.writestr("index.json", raw_index if raw_index is not None else json.dumps(index))
        for name, data in (files if files is not None
                           else {"exercises/m/attempt-1/main.py": b"x = 1\n"}).items():
            zf.writestr(name, data)
    return out.getvalue()


def _patch(data: bytes, signature: bytes, offset: int, fmt: str, value: int,
           every: bool = True) -> bytes:
    """Set a field of the first (or every) local/central header with this signature."""
    out = bytearray(data)
    at = out.find(signature)
    while at != -1:
        struct.pack_into(fmt, out, at + offset, value)
        if not every:
            break
        at = out.find(signature, at + 4)
    return bytes(out)


LOCAL, CENTRAL = b"PK\x03\x04", b"PK\x01\x02"


def _method(data: bytes, method: int) -> bytes:
    return _patch(_patch(data, LOCAL, 8, "<H", method), CENTRAL, 10, "<H", method)


def _flags(data: bytes, flags: int) -> bytes:
    return _patch(_patch(data, LOCAL, 6, "<H", flags), CENTRAL, 8, "<H", flags)


def _bad_crc(data: bytes) -> bytes:
    return _patch(_patch(data, LOCAL, 14, "<I", 0xDEADBEEF), CENTRAL, 16, "<I", 0xDEADBEEF)


def _lying_sizes(data: bytes, size: int) -> bytes:
    for sig, offsets in ((LOCAL, (18, 22)), (CENTRAL, (20, 24))):
        for offset in offsets:
            data = _patch(data, sig, offset, "<I", size, every=False)
    return data


def _deflated_then_lying(data: bytes) -> bytes:
    return _patch(_patch(data, LOCAL, 22, "<I", 3, every=False), CENTRAL, 24, "<I", 3,
                  every=False)


def _changed(**change: Any) -> dict[str, Any]:
    return {**GOOD, **change}


def _exercise(**change: Any) -> dict[str, Any]:
    return _changed(exercises=[{**GOOD["exercises"][0], **change}])


CORPUS: dict[str, tuple[Callable[[], bytes], str]] = {
    "not a zip": (lambda: b"this is not a zip", "not a ZIP file"),
    "truncated": (lambda: _zip()[:60], "not a ZIP file"),
    "bad CRC": (lambda: _bad_crc(_zip()), "damaged"),
    "compression method 99": (lambda: _method(_zip(), 99), "compression method"),
    "bzip2 (not written by the export)": (lambda: _zip(method=zipfile.ZIP_BZIP2),
                                          "compression method"),
    "encrypted flag": (lambda: _flags(_zip(), 0x1), "encrypted"),
    "index.json nested 100,000 deep": (lambda: _zip(raw_index=b"[" * 100_000 + b"]" * 100_000),
                                       "nested deeper"),
    "central directory lies (smaller)": (lambda: _lying_sizes(_zip(), 5), "damaged"),
    "central directory lies (huge)": (lambda: _lying_sizes(_zip(), 2**31), "larger than"),
    "deflated, sizes lie": (lambda: _deflated_then_lying(_zip(method=zipfile.ZIP_DEFLATED)),
                            "damaged"),
    "no index.json": (lambda: _zip(files={}, raw_index=b"{}").replace(b"index.json",
                                                                      b"indexxjson"),
                      "no index.json"),
    "index.json not JSON": (lambda: _zip(raw_index=b"{nope"), "not JSON"),
    "index.json a list": (lambda: _zip([1, 2]), "not a JSON object"),
    "another format": (lambda: _zip(_changed(format="other/1")), "not a jax-pathways"),
    "attempts is a number": (lambda: _zip(_exercise(attempts=3)), "exercises.0.attempts"),
    "last_opened_at an integer": (
        lambda: _zip(_changed(lessons_opened=[{**GOOD["lessons_opened"][0],
                                               "last_opened_at": 1700000000}])),
        "lessons_opened.0.last_opened_at"),
    "last_opened_at not a date": (
        lambda: _zip(_changed(lessons_opened=[{**GOOD["lessons_opened"][0],
                                               "last_opened_at": "yesterday"}])),
        "ISO 8601"),
    "score a string": (lambda: _zip(_exercise(best="3.0")), "must be a number"),
    "score NaN": (lambda: _zip(raw_index=json.dumps(_exercise(best=float("nan"))).encode()),
                  "exercises.0.best"),
    "correct a string": (
        lambda: _zip(_changed(checkpoints=[{**GOOD["checkpoints"][0], "answers": [
            {"attempt": 1, "choice": "a", "correct": "yes"}]}])), "true or false"),
    "title too long": (lambda: _zip(_exercise(title="t" * 10_000)), "exercises.0.title"),
    "too many records": (lambda: _zip(_changed(checkpoints=[GOOD["checkpoints"][0]] * 501)),
                         "checkpoints"),
    "checkpoints missing": (lambda: _zip({k: v for k, v in GOOD.items()
                                          if k != "checkpoints"}), "checkpoints"),
    "path traversal": (lambda: _zip(files={"../../etc/cron.d/x": b"x"}), "name"),
    "absolute path": (lambda: _zip(files={"/etc/passwd": b"x"}), "name"),
    "a file not UTF-8": (lambda: _zip(files={"exercises/m/main.py": b"\xff\xfe\x00"}),
                         "not UTF-8"),
    "too many files": (lambda: _zip(files={f"f{i}.txt": b"" for i in range(501)}),
                       "the limit is 500"),
}


def _learner(client: FlaskClient, platform: Platform) -> tuple[str, dict[str, str], int]:
    token, pid = launch(client, platform, sub="alice", role=LEARNER, context_id="course-1",
                        content_id="arrays-04")
    page = client.get(f"/learn/{pid}/my-learning", query_string={"lt": token})
    assert page.status_code == 200
    action, fields = _fields(page.get_data(as_text=True), "/my-learning/import")
    return action, fields, pid


def _imports(app: Flask) -> int:
    with state(app).sessions() as session:
        return session.scalar(select(func.count()).select_from(PortfolioImport)) or 0


def _upload(client: FlaskClient, action: str, fields: dict[str, str], data: bytes) -> Any:
    return _post(client, action, {**fields, "portfolio": (io.BytesIO(data), "mine.zip")},
                 content_type="multipart/form-data")


def test_every_malformed_archive_is_a_400_that_says_why_and_stores_nothing(
        app: Flask, client: FlaskClient, platform: Platform) -> None:
    action, fields, pid = _learner(client, platform)
    for kind, (make, says) in CORPUS.items():
        answer = _upload(client, action, fields, make())
        text = answer.get_data(as_text=True)
        assert answer.status_code == 400, (kind, text[:300])
        assert "Not imported:" in text and says in text, (kind, text.split("Not imported:")[1][:300]
                                                          if "Not imported:" in text else text)
        assert _imports(app) == 0, kind
    ok = _upload(client, action, fields, _zip())
    assert ok.status_code == 303 and _imports(app) == 1
    page = client.get(f"/learn/{pid}/my-learning", query_string={"lt": fields["lt"]})
    assert page.status_code == 200 and "Mask: 1 attempt(s), best 3.0 / 3.0" in page.get_data(
        as_text=True)


def test_a_manifest_stored_unchecked_is_shown_as_unreadable_not_a_500(
        app: Flask, client: FlaskClient, platform: Platform) -> None:
    _, fields, pid = _learner(client, platform)
    with state(app).sessions() as session:
        user = session.scalars(select(LmsUser)).one()
        for manifest in ({**GOOD, "exercises": [{"title": "x", "attempts": 3}]},
                         {**GOOD, "lessons_opened": [{"title": "<b>x</b>",
                                                      "last_opened_at": 1700000000}]},
                         "not even a dict"):
            session.add(PortfolioImport(user_id=user.id, manifest=manifest, files=[],
                                        source="<script>alert(1)</script>"))
        session.commit()
    page = client.get(f"/learn/{pid}/my-learning", query_string={"lt": fields["lt"]})
    text = page.get_data(as_text=True)
    assert page.status_code == 200
    assert text.count("This import cannot be read") == 3
    assert "<script>alert(1)" not in text and "&lt;script&gt;" in text


def test_an_archive_over_the_cap_is_refused_before_it_is_opened() -> None:
    with pytest.raises(ServiceError, match="the limit is"):  # (a request that big is a 413)
        read_zip(b"PK" + b"\0" * MAX_IMPORT_BYTES)


@pytest.mark.parametrize(("text", "depth"), [(b"{}", 1), (b'[[{"a": "[[[["}]]', 3),
                                              (b'"\\"[["', 0), (b"[" * 50, 50)])
def test_depth_is_counted_outside_strings(text: bytes, depth: int) -> None:
    assert json_depth(text) == depth
