"""Learner pages of an exercise: the page, submit (paste or upload), live status, history.

Thin views: form -> schema -> ``service`` -> template or JSON. Who may see what is the guard's
job (``lti_service.core.authz``): a learner reaches only the exercise placement they launched and
only their own submissions; an instructor only those of their own LMS course. The submit form,
status and history JSON themselves are ``submissions.panel``, which a lesson page reuses.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import abort, jsonify, render_template, send_file, url_for
from sqlalchemy.orm import Session
from werkzeug.wrappers import Response

from lti_service.core.auth import launch_url_args
from lti_service.core.authz import LEARNER, Guard, Owned, PlacementAccess
from lti_service.core.content import EXERCISE_KINDS, LESSON_KINDS
from lti_service.core.extensions import db, state
from lti_service.submissions import attempts, bp, project, service
from lti_service.submissions.models import CodeRun, Submission
from lti_service.submissions.panel import (
    history_json,
    panel,
    run_status_json,
    start_run,
    status_json,
    submit_answer,
)

logger = logging.getLogger(__name__)


def _submission(session: Session, submission_id: str) -> Owned | None:
    row = session.get(Submission, submission_id)
    return Owned(row, row.placement_id, row.user_id) if row is not None else None


def _run(session: Session, run_id: str) -> Owned | None:
    row = session.get(CodeRun, run_id[:40])
    return Owned(row, row.placement_id, row.user_id) if row is not None else None


guard = Guard(bp, source="page", owned={"submission_id": _submission, "run_id": _run})


def _exercise(access: PlacementAccess) -> Any:
    found = state().course.get().exercise(access.placement.content_id)
    if found is None:  # the guard checked the kind; the course may have changed since
        abort(404, f"{access.placement.content_id!r} is not an exercise of this course; ask "
                   "your instructor to re-add the activity")
    return found


def _render(access: PlacementAccess, *, source: str = "", errors: list[str] | None = None,
            status: int = 200) -> tuple[str, int]:
    lesson, exercise = _exercise(access)
    placement, user_id = access.placement, access.user.id
    exercise = exercise.for_variant(service.learner_variant(exercise, placement, user_id))
    lt = launch_url_args().get("lt", "")
    # A phase's project has its own page: its files, its stages, the one file that is graded.
    extra = project.page_context(access) if access.item.kind in project.PROJECT_KINDS else {}
    html = render_template(
        "submissions/project.html" if extra else "submissions/exercise.html",
        title=exercise.title, lesson=lesson, exercise=exercise,
        placement=placement, lt=lt, **extra, **panel(
            access, lesson, exercise, source=source, errors=errors,
            action=url_for("submissions.submit", placement_id=placement.id),
            history_url=url_for("submissions.history", placement_id=placement.id, lt=lt),
            run_action=url_for("submissions.run", placement_id=placement.id)))
    return html, status


@bp.get("/exercise/<int:placement_id>")
@guard(LEARNER, kinds=EXERCISE_KINDS)
def exercise_page(access: PlacementAccess) -> Any:
    return _render(access)


@bp.get("/exercise/<int:placement_id>/project/<path:name>")
@guard(LEARNER, kinds=project.PROJECT_KINDS)
def project_file(access: PlacementAccess, name: str) -> Response:
    """A learner file of the project (its starter): a download, as plain text."""
    if len(name) > project.MAX_NAME:
        abort(404, "the project has no such file")
    return send_file(project.file_of(access, name), mimetype="text/plain", as_attachment=True,
                     download_name=name.rsplit("/", 1)[-1])


@bp.get("/exercise/<int:placement_id>/project.zip")
@guard(LEARNER, kinds=project.PROJECT_KINDS)
def project_zip(access: PlacementAccess) -> Response:
    """The project folder as the learner ZIP has it (README, run.py, starter/)."""
    name, data = project.zip_of(access)
    return Response(data, mimetype="application/zip",
                    headers={"Content-Disposition": f"attachment; filename={name}"})


@bp.post("/exercise/<int:placement_id>/submit")
@guard(LEARNER, kinds=EXERCISE_KINDS)
def submit(access: PlacementAccess) -> Any:
    _, exercise = _exercise(access)
    return submit_answer(
        access, exercise,
        # without JavaScript the page opens at the attempts, where the new one is listed
        done_url=url_for("submissions.exercise_page", placement_id=access.placement.id,
                         **launch_url_args()) + "#history",
        refused=lambda source, messages: _render(access, source=source, errors=messages,
                                                 status=400))


@bp.post("/exercise/<int:placement_id>/run")
@guard(LEARNER, kinds=EXERCISE_KINDS)
def run(access: PlacementAccess) -> Any:
    """Run main.py on its visible examples: output and visible checks, never scored."""
    _, exercise = _exercise(access)
    return start_run(
        access, exercise,
        done_url=url_for("submissions.exercise_page", placement_id=access.placement.id,
                         **launch_url_args()) + "#run",
        refused=lambda source, messages: _render(access, source=source, errors=messages,
                                                 status=400))


@bp.get("/runs/<run_id>/status.json")
@guard(LEARNER, kinds=EXERCISE_KINDS)
def run_status(access: PlacementAccess) -> Any:
    return jsonify(run_status_json(access.owned))


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
    limit = attempts.code_limit(placement, attempts.allowance(db(), placement.id,
                                                              access.user.id))
    return jsonify(history_json(placement, rows, chosen, limit or 0))


