"""Learner pages of an exercise: the page, submit (paste or upload), live status, history.

Thin views: form -> schema -> ``service`` -> template or JSON. Who may see what is the guard's
job (``lti_service.authz``): a learner reaches only the exercise placement they launched and
only their own submissions; an instructor only those of their own LMS course. ``panel`` and
``accept`` are what a lesson page (``lti_service.learner``) reuses to submit its exercises.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import abort, current_app, jsonify, redirect, render_template, request, url_for
from marshmallow import ValidationError
from sqlalchemy.orm import Session

from course import submission_for
from grading_contract.config import load_queue_config
from grading_contract.queues import Queues
from lti_service.auth import launch_url_args
from lti_service.authz import LEARNER, Guard, Owned, PlacementAccess
from lti_service.extensions import db, state
from lti_service.services.content import EXERCISE_KINDS, LESSON_KINDS
from lti_service.submissions import bp, service
from lti_service.submissions.forms import SubmitSchema, read_upload
from lti_service.submissions.models import Submission
from lti_service.submissions.settings import PRACTICE_ATTEMPTS, GradingSettings

logger = logging.getLogger(__name__)
QUEUES_KEY = "pathways.grading_queues"


def _submission(session: Session, submission_id: str) -> Owned | None:
    row = session.get(Submission, submission_id)
    return Owned(row, row.placement_id, row.user_id) if row is not None else None


guard = Guard(bp, source="page", owned={"submission_id": _submission})


def queues() -> Queues:
    """The app's grading queues (tests may install their own under QUEUES_KEY)."""
    found = current_app.extensions.get(QUEUES_KEY)
    if found is None:
        found = current_app.extensions[QUEUES_KEY] = Queues(load_queue_config())
    return found


def settings() -> GradingSettings:
    return GradingSettings.from_config(state().config)


def _exercise(access: PlacementAccess) -> Any:
    found = state().course.get().exercise(access.placement.content_id)
    if found is None:  # the guard checked the kind; the course may have changed since
        abort(404, f"{access.placement.content_id!r} is not an exercise of this course; ask "
                   "your instructor to re-add the activity")
    return found


def status_json(row: Submission) -> dict[str, Any]:
    result = row.result or {}
    return {
        "id": row.id, "attempt_number": row.attempt_number, "status": row.status,
        "outcome": row.outcome, "score": row.score, "max_score": row.max_score,
        "feedback": row.feedback,
        "checks": result.get("checks", []), "stdout": result.get("stdout", ""),
        "stderr": result.get("stderr", ""),
        "created_at": row.created_at.isoformat(),
        "graded_at": row.graded_at.isoformat() if row.graded_at else None,
        "status_url": url_for("submissions.status", submission_id=row.id, **launch_url_args()),
    }


def graded_file(lesson: Any, exercise: Any) -> str:
    """What the editor starts with: the whole main.py that is graded (the lesson's code, then
    the exercise starter, as ``course.submission_for`` composes it), so submitting the box as
    it is runs, and the learner sees the exact file."""
    return submission_for(lesson, exercise, exercise.starter_code)


def panel(access: PlacementAccess, lesson: Any, exercise: Any, *, action: str,
          history_url: str, pfx: str = "", h: int = 2, source: str = "",
          errors: list[str] | None = None,
          rows: list[Submission] | None = None) -> dict[str, Any]:
    """The context of ``submissions/_panel.html`` for one exercise (as the learner sees it) in
    the access's placement: on its own exercise placement (graded, counted) or on a lesson
    page (practice); ``rows``: its attempts, newest first, when the caller read them."""
    placement, user_id = access.placement, access.user.id
    practice = not service.scores_placement(placement, exercise.id)
    session = db()
    if rows is None:
        rows = service.history(session, placement.id, user_id, exercise.id)
    return {
        "pfx": pfx, "h": h, "action": action, "history_url": history_url,
        "practice": practice, "rows": rows, "errors": errors or [],
        "counted": None if practice else service.counted(session, placement, user_id),
        "counting": placement.counting,
        "limit": PRACTICE_ATTEMPTS if practice else placement.max_attempts,
        "source": source or graded_file(lesson, exercise),
        "used": sum(r.status in service.CHARGED for r in rows),
        "max_bytes": settings().max_source_bytes,
        "statuses": [status_json(r) for r in rows if r.status in ("queued", "running")],
        "draft_key": f"{placement.id}:{user_id}:{exercise.id}"}


def _render(access: PlacementAccess, *, source: str = "", errors: list[str] | None = None,
            status: int = 200) -> tuple[str, int]:
    lesson, exercise = _exercise(access)
    placement, user_id = access.placement, access.user.id
    exercise = exercise.for_variant(service.learner_variant(exercise, placement, user_id))
    lt = launch_url_args().get("lt", "")
    html = render_template(
        "submissions/exercise.html", title=exercise.title, lesson=lesson, exercise=exercise,
        placement=placement, lt=lt, **panel(
            access, lesson, exercise, source=source, errors=errors,
            action=url_for("submissions.submit", placement_id=placement.id),
            history_url=url_for("submissions.history", placement_id=placement.id, lt=lt)))
    return html, status


def accept(access: PlacementAccess, exercise: Any) -> Submission:
    """Validate the submit form (pasted or uploaded main.py) and submit it for ``exercise`` in
    the access's placement; raises ValidationError or SubmissionError with what to fix.
    A lesson page's attempts are practice, limited to PRACTICE_ATTEMPTS per exercise."""
    placement = access.placement
    limit = settings().max_source_bytes
    data = SubmitSchema(max_bytes=limit).load(
        read_upload(request.files.get("main_py"), request.form.get("source", ""), limit))
    practice = not service.scores_placement(placement, exercise.id)
    return service.submit(db(), queues(), settings(), placement=placement, user=access.user,
                          exercise_id=exercise.id, source=data["source"],
                          variant=service.variant_on(exercise, placement, access.user.id),
                          course_version=state().course.get().version,
                          checks_hash=exercise.checks_hash,
                          max_attempts=PRACTICE_ATTEMPTS if practice else None)


@bp.get("/exercise/<int:placement_id>")
@guard(LEARNER, kinds=EXERCISE_KINDS)
def exercise_page(access: PlacementAccess) -> Any:
    return _render(access)


@bp.post("/exercise/<int:placement_id>/submit")
@guard(LEARNER, kinds=EXERCISE_KINDS)
def submit(access: PlacementAccess) -> Any:
    placement = access.placement
    _, exercise = _exercise(access)
    wants_json = request.accept_mimetypes.best == "application/json"
    try:
        row = accept(access, exercise)
    except (ValidationError, service.SubmissionError) as exc:
        messages = messages_of(exc)
        if wants_json:
            return jsonify({"error": "invalid_submission", "messages": messages}), 400
        return _render(access, source=request.form.get("source", ""), errors=messages,
                       status=400)
    if wants_json:
        return jsonify(status_json(row)), 202
    return redirect(url_for("submissions.exercise_page", placement_id=placement.id,
                            **launch_url_args()), code=303)


def messages_of(exc: Exception) -> list[str]:
    if isinstance(exc, ValidationError):
        raw = exc.messages
        if isinstance(raw, dict):
            return [str(m) for value in raw.values()
                    for m in (value if isinstance(value, list) else [value])]
        return [str(m) for m in raw]
    return [str(exc)]


@bp.get("/submissions/<submission_id>/status.json")
@guard(LEARNER, kinds=EXERCISE_KINDS + LESSON_KINDS)
def status(access: PlacementAccess) -> Any:
    return jsonify(status_json(access.owned))


@bp.get("/exercise/<int:placement_id>/history.json")
@guard(LEARNER, kinds=EXERCISE_KINDS)
def history(access: PlacementAccess) -> Any:
    placement = access.placement
    rows = service.history(db(), placement.id, access.user.id)
    chosen = service.counted(db(), placement, access.user.id)
    return jsonify(history_json(placement, rows, chosen))


def history_json(placement: Any, rows: list[Submission], chosen: Submission | None,
                 max_attempts: int | None = None) -> dict[str, Any]:
    return {"counting": placement.counting,
            "max_attempts": placement.max_attempts if max_attempts is None else max_attempts,
            "counted": chosen.id if chosen else None,
            "submissions": [status_json(r) for r in rows]}
