"""My learning: one learner's work across an LMS course, its ZIP export and import.

Keyed by the learner's LTI identity on the tool's side (``LmsUser``: platform + ``sub``). The
ZIP holds ``index.json`` (what it is, every record: the lessons opened, checkpoint answers,
exercise attempts with the file of each, including practice on a lesson page), the code of each
exercise attempt, its output and its graded result (the receipt), so a learner can keep it, and
import it on another course or deployment, where My learning lists it as imported work
(``portfolio_import`` checks an import whole before storing it).
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import asdict, dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from course.model import Course
from lti_service.checkpoints.models import CheckpointAttempt
from lti_service.checkpoints.service import counted
from lti_service.core import content
from lti_service.core.errors import ServiceError
from lti_service.core.models import LmsContext, LmsUser, Placement, Platform, utcnow
from lti_service.learner.models import EvidenceNote, LessonOpen, PortfolioImport
from lti_service.learner.service.portfolio_import import (
    FORMAT,
    MAX_IMPORT_BYTES,
    MAX_IMPORT_FILES,
    ImportedView,
    imported_view,
    read_zip,
)
from lti_service.learner.service.portfolio_restore import import_zip
from lti_service.submissions.models import Submission
from lti_service.submissions.results import learner_result

__all__ = ["FORMAT", "MAX_IMPORT_BYTES", "MAX_IMPORT_FILES", "import_zip", "read_zip"]
MAX_NOTE_CHARS = 20_000


@dataclass(frozen=True)
class LessonNote:
    """A lesson of the course's placements and the learner's evidence note for it."""

    lesson_id: str
    title: str
    template: str
    text: str
    updated_at: str | None


@dataclass(frozen=True)
class OpenedRecord:
    """A lesson the learner opened in this LMS course: when first and last, how often."""

    lesson_id: str
    title: str
    first_opened_at: str | None
    last_opened_at: str | None
    opens: int


@dataclass(frozen=True)
class CheckpointRecord:
    content_id: str
    title: str
    answers: list[dict[str, Any]]
    """Each answer: attempt, choice (its key), correct, label and text (as the learner saw
    the choice), at (ISO 8601)."""
    score: float


@dataclass(frozen=True)
class ExerciseRecord:
    content_id: str
    title: str
    attempts: list[dict[str, Any]]
    """Each attempt: attempt, status, score, max_score, feedback, at, and its files in the ZIP."""
    best: float | None
    max_score: float | None
    where: str = "exercise"
    """"exercise": its own activity (graded in the LMS); "lesson": practice on a lesson page."""


@dataclass
class Portfolio:
    learner: str
    course: str
    notes: list[LessonNote] = field(default_factory=list)
    opened: list[OpenedRecord] = field(default_factory=list)
    checkpoints: list[CheckpointRecord] = field(default_factory=list)
    exercises: list[ExerciseRecord] = field(default_factory=list)
    imported: list[ImportedView] = field(default_factory=list)
    identity: dict[str, str] | None = None
    """Whose work it is: the LMS issuer and the learner's subject there (import checks it)."""
    sources: dict[str, str] = field(default_factory=dict)
    """ZIP path -> text (code, output, receipt) of each exercise attempt."""


def _iso(when: datetime | None) -> str | None:
    return when.isoformat() if when else None


def placed_lessons(session: Session, course: Course, context: LmsContext) -> dict[str, Any]:
    """Lesson id -> Lesson, for every lesson an activity of the LMS course belongs to."""
    out: dict[str, Any] = {}
    for cid in session.scalars(select(Placement.content_id).where(
            Placement.context_id == context.id).order_by(Placement.id)):
        item = content.find(course, cid)
        if item is not None:
            out.setdefault(item.lesson.id, item.lesson)
    return out


def collect(session: Session, user: LmsUser, context: LmsContext,
            course: Course) -> Portfolio:
    """Everything ``user`` did in the LMS course ``context``, in placement order."""
    placements = list(session.scalars(select(Placement).where(
        Placement.context_id == context.id).order_by(Placement.id)))
    issuer = session.scalar(select(Platform.issuer).where(Platform.id == user.platform_id))
    mine = Portfolio(learner=user.name or user.sub, course=context.title or context.context_id,
                     identity={"issuer": issuer or "", "sub": user.sub})
    written = {n.lesson_id: n for n in session.scalars(select(EvidenceNote).where(
        EvidenceNote.user_id == user.id))}
    placed = placed_lessons(session, course, context)
    for o in session.scalars(select(LessonOpen).where(
            LessonOpen.user_id == user.id, LessonOpen.context_id == context.id)
            .order_by(LessonOpen.first_opened_at, LessonOpen.id)):
        lesson = placed.get(o.lesson_id) or course.lesson(o.lesson_id)
        mine.opened.append(OpenedRecord(o.lesson_id, lesson.title if lesson else o.lesson_id,
                                        _iso(o.first_opened_at), _iso(o.last_opened_at),
                                        o.opens))
    for lesson_id, lesson in placed.items():
        note = written.get(lesson_id)
        mine.notes.append(LessonNote(lesson_id, lesson.title, lesson.evidence_template,
                                     note.text if note else "",
                                     _iso(note.updated_at) if note else None))
        if note and note.text.strip():
            mine.sources[f"notes/{lesson_id}.md"] = note.text
    answers: dict[int, list[CheckpointAttempt]] = {}
    for a in session.scalars(select(CheckpointAttempt).where(
            CheckpointAttempt.user_id == user.id,
            CheckpointAttempt.placement_id.in_([p.id for p in placements]))
            .order_by(CheckpointAttempt.attempt_number)):
        answers.setdefault(a.placement_id, []).append(a)
    subs = _submissions(session, user, [p.id for p in placements])
    for p in placements:
        if p.id in answers:
            tried = answers[p.id]
            mine.checkpoints.append(CheckpointRecord(
                p.content_id, p.title,
                [{"attempt": a.attempt_number, "choice": a.choice, "correct": a.correct,
                  "label": a.choice_label or "", "text": (a.choice_text or "")[:500],
                  "at": _iso(a.created_at)} for a in tried],
                counted(tried, p.counting)))
        by_exercise: dict[str, list[Any]] = {}
        for row in subs.get(p.id, []):
            by_exercise.setdefault(row.exercise_id, []).append(row)
        for exercise_id, rows in by_exercise.items():
            mine.exercises.append(_exercise(p, exercise_id, rows, course, mine.sources))
    mine.imported = [imported_view(row) for row in session.scalars(select(PortfolioImport).where(
        PortfolioImport.user_id == user.id).order_by(PortfolioImport.id))]
    return mine


def _submissions(session: Session, user: LmsUser, placement_ids: list[int]
                 ) -> dict[int, list[Any]]:
    """The learner's submissions in these placements (plain rows)."""
    table = Submission.__table__
    if not placement_ids:
        return {}
    out: dict[int, list[Any]] = {}
    for row in session.execute(select(table).where(
            table.c.user_id == user.id, table.c.placement_id.in_(placement_ids))
            .order_by(table.c.attempt_number)):
        out.setdefault(row.placement_id, []).append(row)
    return out


def _exercise(p: Placement, exercise_id: str, rows: list[Any], course: Course,
              files: dict[str, str]) -> ExerciseRecord:
    """The attempts at one exercise in one placement: its own activity, or a lesson's page
    (practice; kept in a folder of its own so both attempt #1s fit in the ZIP)."""
    attempts = []
    own = exercise_id == p.content_id
    folder = exercise_id.replace("/", "_") + ("" if own else f"/on-lesson-{p.id}")
    found = course.exercise(exercise_id)
    title = p.title if own else (found[1].title if found else exercise_id) + " (lesson page)"
    for row in rows:
        base = f"exercises/{folder}/attempt-{row.attempt_number}"
        result = learner_result(row.result)
        files[f"{base}/main.py"] = row.source
        output = "".join(part for part in (result.get("stdout", ""), result.get("stderr", "")))
        if output:
            files[f"{base}/output.txt"] = output
        if result:
            files[f"{base}/receipt.json"] = json.dumps(result, indent=2, sort_keys=True)
        attempts.append({"attempt": row.attempt_number, "status": row.status,
                         "score": row.score, "max_score": row.max_score,
                         "feedback": row.feedback, "at": _iso(row.created_at),
                         "files": sorted(k for k in files if k.startswith(base + "/"))})
    graded = [r.score for r in rows if r.status == "graded" and r.score is not None]
    return ExerciseRecord(exercise_id, title, attempts, max(graded) if graded else None,
                          next((r.max_score for r in rows if r.max_score), None),
                          "exercise" if own else "lesson")


def index_of(mine: Portfolio, *, tool_url: str) -> dict[str, Any]:
    return {"format": FORMAT, "learner": mine.learner, "course": mine.course,
            "tool": tool_url, "identity": mine.identity,
            "notes": [{"lesson_id": n.lesson_id, "title": n.title, "updated_at": n.updated_at,
                       "file": f"notes/{n.lesson_id}.md"} for n in mine.notes if n.text.strip()],
            "lessons_opened": [asdict(o) for o in mine.opened],
            "checkpoints": [asdict(c) for c in mine.checkpoints],
            "exercises": [asdict(e) for e in mine.exercises]}


def export_zip(mine: Portfolio, *, tool_url: str) -> bytes:
    """The portfolio as one ZIP: ``index.json`` and every attempt's code, output and receipt."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("index.json", json.dumps(index_of(mine, tool_url=tool_url), indent=2))
        for name, text in sorted(mine.sources.items()):
            zf.writestr(name, text)
    return out.getvalue()


def save_note(session: Session, user: LmsUser, context: LmsContext, course: Course,
              lesson_id: str, text: str) -> EvidenceNote:
    """Write the learner's evidence note for a lesson placed in this LMS course."""
    if lesson_id not in placed_lessons(session, course, context):
        raise ServiceError("that lesson is not part of this LMS course", field="lesson_id")
    text = text.replace("\r\n", "\n")
    if len(text) > MAX_NOTE_CHARS:
        raise ServiceError(f"the note is {len(text)} characters; the limit is {MAX_NOTE_CHARS}",
                           field="text")
    note = session.scalar(select(EvidenceNote).where(
        EvidenceNote.user_id == user.id, EvidenceNote.lesson_id == lesson_id))
    if note is None:
        note = EvidenceNote(user_id=user.id, lesson_id=lesson_id)
        session.add(note)
    note.text = text
    note.updated_at = utcnow()
    session.flush()
    return note


def record_open(session: Session, user: LmsUser, context: LmsContext, lesson_id: str) -> None:
    """Note that ``user`` opened the lesson's page now: one upsert (first time kept, last time
    and count updated), in the caller's transaction."""
    now = utcnow()
    session.execute(_open_upsert(session.get_bind().dialect.name), {
        "user_id": user.id, "context_id": context.id, "lesson_id": lesson_id,
        "first_opened_at": now, "last_opened_at": now})


@lru_cache(maxsize=4)
def _open_upsert(dialect: str) -> Any:
    """The upsert of ``record_open``, built once per dialect (building it was a third of the
    lesson page's statement work: every page view runs it)."""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    stmt = insert(LessonOpen).values(user_id=bindparam("user_id"),
                                     context_id=bindparam("context_id"),
                                     lesson_id=bindparam("lesson_id"),
                                     first_opened_at=bindparam("first_opened_at"),
                                     last_opened_at=bindparam("last_opened_at"), opens=1)
    return stmt.on_conflict_do_update(
        index_elements=["user_id", "context_id", "lesson_id"],
        set_={"last_opened_at": stmt.excluded.last_opened_at,
              "opens": LessonOpen.opens + 1})
