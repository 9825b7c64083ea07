"""Learner pages of an exercise: the page, submit (paste or upload), live status, history.

Thin views: form -> schema -> ``service`` -> template or JSON. A learner sees only their own
submissions in the placement they were launched into.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import abort, current_app, jsonify, redirect, render_template, request, url_for
from marshmallow import ValidationError

from grader_worker.config import load_config
from grader_worker.queue import Queues
from lti_service.auth import current_launch, launch_url_args, require_learner
from lti_service.extensions import db, state
from lti_service.models import LmsUser, Placement
from lti_service.submissions import bp, service
from lti_service.submissions.forms import SubmitSchema, read_upload
from lti_service.submissions.models import Submission
from lti_service.submissions.settings import GradingSettings

logger = logging.getLogger(__name__)
QUEUES_KEY = "pathways.grading_queues"


def queues() -> Queues:
    """The app's grading queues (tests may install their own under QUEUES_KEY)."""
    found = current_app.extensions.get(QUEUES_KEY)
    if found is None:
        found = current_app.extensions[QUEUES_KEY] = Queues(load_config())
    return found


def settings() -> GradingSettings:
    return GradingSettings().with_overrides(state().config.extra.get("grading"))


def _placement(placement_id: int) -> Placement:
    launch = current_launch()
    assert launch is not None
    placement = db().get(Placement, placement_id)
    if placement is None or (placement.id != launch.placement_id and not launch.is_instructor):
        abort(403, "this exercise is not the one you launched: open it from your LMS course")
    if placement.context_id != launch.context_pk:
        abort(403, "this exercise belongs to another course")
    return placement


def _exercise(placement: Placement) -> Any:
    found = state().course.get().exercise(placement.content_id)
    if found is None:
        abort(404, f"{placement.content_id!r} is not an exercise of this course; ask your "
                   "instructor to re-add the activity")
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


def _render(placement: Placement, *, source: str = "", errors: list[str] | None = None,
            status: int = 200) -> tuple[str, int]:
    lesson, exercise = _exercise(placement)
    launch = current_launch()
    assert launch is not None
    exercise = exercise.for_variant(service.learner_variant(exercise, placement, launch.user_id))
    session = db()
    rows = service.history(session, placement.id, launch.user_id)
    chosen = service.counted(session, placement, launch.user_id)
    html = render_template(
        "submissions/exercise.html", title=exercise.title, lesson=lesson, exercise=exercise,
        placement=placement, rows=rows, counted=chosen, errors=errors or [],
        source=source or exercise.starter_code,
        used=service.attempts_used(session, placement.id, launch.user_id),
        lt=launch_url_args().get("lt", ""), max_bytes=settings().max_source_bytes,
        statuses=[status_json(r) for r in rows if r.status in ("queued", "running")])
    return html, status


@bp.get("/exercise/<int:placement_id>")
@require_learner
def exercise_page(placement_id: int) -> Any:
    return _render(_placement(placement_id))


@bp.post("/exercise/<int:placement_id>/submit")
@require_learner
def submit(placement_id: int) -> Any:
    placement = _placement(placement_id)
    _, exercise = _exercise(placement)
    launch = current_launch()
    assert launch is not None
    wants_json = request.accept_mimetypes.best == "application/json"
    limit = settings().max_source_bytes
    pasted = request.form.get("source", "")
    try:
        data = SubmitSchema(max_bytes=limit).load(
            read_upload(request.files.get("main_py"), pasted, limit))
        user = db().get(LmsUser, launch.user_id)
        assert user is not None
        row = service.submit(db(), queues(), settings(), placement=placement, user=user,
                             exercise_id=exercise.id, source=data["source"],
                             variant=service.learner_variant(exercise, placement, user.id),
                             course_version=state().course.get().version,
                             checks_hash=exercise.checks_hash)
    except (ValidationError, service.SubmissionError) as exc:
        messages = _messages(exc)
        if wants_json:
            return jsonify({"error": "invalid_submission", "messages": messages}), 400
        return _render(placement, source=pasted, errors=messages, status=400)
    if wants_json:
        return jsonify(status_json(row)), 202
    return redirect(url_for("submissions.exercise_page", placement_id=placement.id,
                            **launch_url_args()), code=303)


def _messages(exc: Exception) -> list[str]:
    if isinstance(exc, ValidationError):
        raw = exc.messages
        if isinstance(raw, dict):
            return [str(m) for value in raw.values()
                    for m in (value if isinstance(value, list) else [value])]
        return [str(m) for m in raw]
    return [str(exc)]


@bp.get("/submissions/<submission_id>/status.json")
@require_learner
def status(submission_id: str) -> Any:
    launch = current_launch()
    assert launch is not None
    row = db().get(Submission, submission_id)
    if row is None or (row.user_id != launch.user_id and not launch.is_instructor):
        abort(404, "no such submission of yours")
    return jsonify(status_json(row))


@bp.get("/exercise/<int:placement_id>/history.json")
@require_learner
def history(placement_id: int) -> Any:
    placement = _placement(placement_id)
    launch = current_launch()
    assert launch is not None
    rows = service.history(db(), placement.id, launch.user_id)
    chosen = service.counted(db(), placement, launch.user_id)
    return jsonify({"counting": placement.counting, "max_attempts": placement.max_attempts,
                    "counted": chosen.id if chosen else None,
                    "submissions": [status_json(r) for r in rows]})
