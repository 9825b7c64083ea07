"""The ``instructor`` blueprint: deep-linking picker, class view, CSV export, resend scores,
regrade an exercise whose checks changed.

Every view is for an instructor of the launch's own LMS course; the guard
(``lti_service.core.authz``) resolves that course and checks the role, Origin and CSRF token.
"""

from __future__ import annotations

import json

from flask import Blueprint, abort, g, redirect, render_template, url_for
from werkzeug.wrappers import Response

from lti_service.core import content
from lti_service.core.auth import launch_url_args
from lti_service.core.authz import INSTRUCTOR, Access, Guard, PlacementAccess
from lti_service.core.content import EXERCISE_KINDS
from lti_service.core.extensions import db, state
from lti_service.core.models import LmsContext
from lti_service.core.spreadsheet import csv_text
from lti_service.instructor.service import classview, roster
from lti_service.lti.service import outbound
from lti_service.outbox.service import delivery as outbox
from lti_service.submissions import service as submissions

bp = Blueprint("instructor", __name__, url_prefix="/instructor")
guard = Guard(bp, source="page")


@bp.get("/picker")
@guard(INSTRUCTOR)
def picker(access: Access) -> str:
    cfg = state().config
    return render_template(
        "picker.html", title="Add course content", groups=content.grouped(state().course.get()),
        launch_args=launch_url_args(), max_attempts=cfg.default_max_attempts,
        counting=cfg.default_counting,
    )


def _view(context: LmsContext) -> classview.ClassView:
    session = db()
    # Never the LMS's availability: the last roster it sent (with its age) when it is down.
    g.roster = roster.cached_members(session, context, rules=outbound.policy(state().config))
    return classview.build(session, state().course.get(), context, g.roster.members)


@bp.get("/class")
@guard(INSTRUCTOR)
def class_view(access: Access) -> str:
    view = _view(access.context)
    return render_template("class_view.html", title="Class view", view=view, roster=g.roster,
                           launch_args=launch_url_args())


@bp.get("/class.csv")
@guard(INSTRUCTOR)
def class_csv(access: Access) -> Response:
    view = _view(access.context)
    text = csv_text(
        ["user_id", "name", "email", "content_id", "attempt", "choice", "correct",
         "answered_at", "counted_score", "variant"],
        ([row.sub, row.name, row.email, p.content_id, a.attempt_number, a.choice,
          int(a.correct), a.created_at.isoformat(), view.score(row, p),
          json.dumps(a.variant, sort_keys=True) if a.variant else ""]
         for row in view.rows for p in view.placements for a in row.attempts.get(p.id, [])))
    return Response(text, mimetype="text/csv",
                    headers={"Content-Disposition": "attachment; filename=class.csv"})


@bp.post("/regrade/<int:placement_id>")
@guard(INSTRUCTOR, kinds=EXERCISE_KINDS)
def regrade(access: PlacementAccess) -> Response:
    """Grade this exercise's submissions again with the course's current checks."""
    from lti_service.submissions.panel import queues, settings

    found = state().course.get().exercise(access.placement.content_id)
    if found is None:
        abort(404, "this placement is not an exercise of the course")
    submissions.regrade(db(), queues(), settings(), placement=access.placement,
                        exercise=found[1])
    return redirect(url_for("instructor.class_view", **launch_url_args()))


@bp.post("/resend")
@guard(INSTRUCTOR)
def resend(access: Access) -> Response:
    session = db()
    outbox.requeue(session, classview.latest_scores(session, access.context))
    session.commit()
    return redirect(url_for("instructor.class_view", **launch_url_args()))
