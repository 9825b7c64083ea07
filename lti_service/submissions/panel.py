"""The exercise panel: the submit form (editor, paste or upload), its attempts and their status
JSON, for any page that hosts an exercise: the exercise placement's own page
(``submissions.views``) and a lesson page's stage 4 (``lti_service.learner``). Access is
already resolved by the calling blueprint's guard; this module only composes and accepts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import current_app, jsonify, redirect, request, url_for
from marshmallow import ValidationError

from course import submission_for
from grading_contract.queues import Queues
from lti_service.core import request_keys
from lti_service.core.auth import launch_url_args
from lti_service.core.authz import PlacementAccess
from lti_service.core.extensions import db, state
from lti_service.submissions import attempts, manual, runs, service
from lti_service.submissions.forms import SubmitSchema, read_upload
from lti_service.submissions.messages import learner_feedback, outcome_of
from lti_service.submissions.models import Submission
from lti_service.submissions.results import learner_result
from lti_service.submissions.settings import PRACTICE_ATTEMPTS, GradingSettings

QUEUES_KEY = "pathways.grading_queues"


def queues() -> Queues:
    """The app's grading queues (tests may install their own under QUEUES_KEY)."""
    found = current_app.extensions.get(QUEUES_KEY)
    if found is None:
        queue = state().config.queue  # read with the rest of the configuration, once
        if queue is None:
            raise RuntimeError("this app was configured without grading queues")
        found = current_app.extensions[QUEUES_KEY] = Queues(queue)
    return found


def settings() -> GradingSettings:
    return GradingSettings.from_config(state().config)


def status_json(row: Submission) -> dict[str, Any]:
    """An attempt's status as its learner may read it (hidden checks hidden: ``results``;
    the words from the one catalogue of outcomes: ``messages``)."""
    result = learner_result(row.result)
    said = outcome_of(row.status, row.outcome)
    return {
        "id": row.id, "attempt_number": row.attempt_number, "status": row.status,
        "outcome": row.outcome, "score": row.score, "max_score": row.max_score,
        "badge": said.badge, "tone": said.tone, "headline": said.headline,
        "feedback": learner_feedback(row.status, row.outcome, row.feedback),
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
          rows: list[Submission] | None = None, run_action: str = "") -> dict[str, Any]:
    """The context of ``submissions/_panel.html`` for one exercise (as the learner sees it) in
    the access's placement: on its own exercise placement (graded, counted) or on a lesson
    page (practice); ``rows``: its attempts, newest first, when the caller read them."""
    placement, user_id = access.placement, access.user.id
    practice = not service.scores_placement(placement, exercise.id)
    session = db()
    if rows is None:
        rows = service.history(session, placement.id, user_id, exercise.id)
    given = None if practice else attempts.allowance(session, placement.id, user_id)
    limit = PRACTICE_ATTEMPTS if practice else attempts.code_limit(placement, given)
    used = sum(r.status in service.CHARGED for r in rows)
    last_run = runs.latest(session, placement.id, user_id, exercise.id) if run_action else None
    return {
        "limit": limit, "used": used,
        "attempt_line": attempts.attempt_line(used, limit, placement.counting),
        "closes": None if practice else attempts.due(placement, given),
        "manual": None if practice else manual.latest(session, placement.id, user_id),
        "run_action": run_action,
        "last_run": runs.run_json(last_run, settings()) if last_run else None,
        "outcome_of": outcome_of, "learner_feedback": learner_feedback,
        "pfx": pfx, "h": h, "action": action, "history_url": history_url,
        "learner_result": learner_result,
        "practice": practice, "rows": rows, "errors": errors or [],
        "counted": None if practice else service.counted(session, placement, user_id),
        "counting": placement.counting,
        "source": source or graded_file(lesson, exercise),
        "max_bytes": settings().max_source_bytes,
        "statuses": [status_json(r) for r in rows if r.status in ("queued", "running")],
        "draft_key": f"{placement.id}:{user_id}:{exercise.id}"}


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
                          max_attempts=PRACTICE_ATTEMPTS if practice else None,
                          request_key=request_keys.from_request())


def submit_answer(access: PlacementAccess, exercise: Any, *, done_url: str,
                  refused: Callable[[str, list[str]], Any]) -> Any:
    """The answer to a submit form, on any page that hosts the panel: 202 with the status JSON
    (live page) or a 303 to ``done_url``; when refused, 400 with the messages (JSON) or
    ``refused(source, messages)``, the hosting page again with the learner's code kept."""
    wants_json = request.accept_mimetypes.best == "application/json"
    try:
        row = accept(access, exercise)
    except (ValidationError, service.SubmissionError) as exc:
        messages = messages_of(exc)
        if wants_json:
            return jsonify({"error": "invalid_submission", "messages": messages}), 400
        return refused(request.form.get("source", ""), messages)
    if wants_json:
        return jsonify(status_json(row)), 202
    return redirect(done_url, code=303)


def messages_of(exc: Exception) -> list[str]:
    if isinstance(exc, ValidationError):
        raw = exc.messages
        if isinstance(raw, dict):
            return [str(m) for value in raw.values()
                    for m in (value if isinstance(value, list) else [value])]
        return [str(m) for m in raw]
    return [str(exc)]


def history_json(placement: Any, rows: list[Submission], chosen: Submission | None,
                 max_attempts: int | None = None) -> dict[str, Any]:
    """``max_attempts``: the learner's limit (0: unlimited; None: the placement's own)."""
    limit = (placement.code_attempts or 0) if max_attempts is None else max_attempts
    used = sum(r.status in service.CHARGED for r in rows)
    return {"counting": placement.counting, "max_attempts": limit,
            "attempt_line": attempts.attempt_line(used, limit or None, placement.counting),
            "counted": chosen.id if chosen else None,
            "submissions": [status_json(r) for r in rows]}


def start_run(access: PlacementAccess, exercise: Any, *, done_url: str,
              refused: Callable[[str, list[str]], Any]) -> Any:
    """The answer to the Run button: 202 with the run's JSON, or 400 with why (JSON); a page
    without JavaScript gets a 303 to ``done_url`` (the run shows there) or
    ``refused(source, messages)``."""
    wants_json = request.accept_mimetypes.best == "application/json"
    placement = access.placement
    limit = settings().max_source_bytes
    try:
        data = SubmitSchema(max_bytes=limit).load(
            read_upload(request.files.get("main_py"), request.form.get("source", ""), limit))
        row = runs.start(db(), queues(), settings(), placement=placement, user=access.user,
                         exercise_id=exercise.id, source=data["source"],
                         variant=service.variant_on(exercise, placement, access.user.id),
                         course_version=state().course.get().version,
                         checks_hash=exercise.checks_hash)
    except (ValidationError, runs.RunRefused) as exc:
        messages = messages_of(exc)
        if wants_json:
            return jsonify({"error": "run_refused", "messages": messages}), 400
        return refused(request.form.get("source", ""), messages)
    if wants_json:
        return jsonify(run_status_json(row)), 202
    return redirect(done_url, code=303)


def run_status_json(row: Any) -> dict[str, Any]:
    return {**runs.run_json(row, settings()),
            "status_url": url_for("submissions.run_status", run_id=row.id, **launch_url_args())}
