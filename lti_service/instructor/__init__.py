"""The ``instructor`` blueprint: deep-linking picker, class view, CSV export, resend scores,
regrade an exercise whose checks changed."""

from __future__ import annotations

import csv
import io

from flask import Blueprint, abort, redirect, render_template, url_for
from werkzeug.wrappers import Response

from ..auth import current_launch, launch_url_args, require_instructor
from ..extensions import db, state
from ..models import LmsContext, Placement
from ..services import classview, content, outbox, roster
from ..submissions import service as submissions

bp = Blueprint("instructor", __name__, url_prefix="/instructor")


def _context() -> LmsContext:
    launch = current_launch()
    assert launch is not None
    context = db().get(LmsContext, launch.context_pk)
    assert context is not None
    return context


@bp.get("/picker")
@require_instructor
def picker() -> str:
    cfg = state().config
    return render_template(
        "picker.html", title="Add course content", items=content.items(state().course.get()),
        launch_args=launch_url_args(), max_attempts=cfg.default_max_attempts,
        counting=cfg.default_counting,
    )


def _view() -> classview.ClassView:
    session = db()
    context = _context()
    members = roster.members(session, context)
    session.commit()  # keep a newly cached access token
    return classview.build(session, state().course.get(), context, members)


@bp.get("/class")
@require_instructor
def class_view() -> str:
    return render_template("class_view.html", title="Class view", view=_view(),
                           launch_args=launch_url_args())


@bp.get("/class.csv")
@require_instructor
def class_csv() -> Response:
    view = _view()
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["user_id", "name", "email", "content_id", "attempt", "choice", "correct",
                     "answered_at", "counted_score"])
    for row in view.rows:
        for p in view.placements:
            for a in row.attempts.get(p.id, []):
                writer.writerow([row.sub, row.name, row.email, p.content_id, a.attempt_number,
                                 a.choice, int(a.correct), a.created_at.isoformat(),
                                 view.score(row, p)])
    return Response(out.getvalue(), mimetype="text/csv",
                    headers={"Content-Disposition": "attachment; filename=class.csv"})


@bp.post("/regrade/<int:placement_id>")
@require_instructor
def regrade(placement_id: int) -> Response:
    """Grade this exercise's submissions again with the course's current checks."""
    from ..submissions.views import queues, settings

    session = db()
    placement = session.get(Placement, placement_id)
    if placement is None or placement.context_id != _context().id:
        abort(404, "no such exercise placement in this course")
    found = state().course.get().exercise(placement.content_id)
    if found is None:
        abort(404, f"{placement.content_id!r} is not an exercise of this course")
    submissions.regrade(session, queues(), settings(), placement=placement, exercise=found[1])
    return redirect(url_for("instructor.class_view", **launch_url_args()))


@bp.post("/resend")
@require_instructor
def resend() -> Response:
    session = db()
    outbox.requeue(session, classview.latest_scores(session, _context()))
    session.commit()
    return redirect(url_for("instructor.class_view", **launch_url_args()))
