"""The ``instructor`` blueprint: deep-linking picker, class view, CSV export, resend scores,
regrade an exercise whose checks changed.

Every view is for an instructor of the launch's own LMS course; the guard
(``lti_service.core.authz``) resolves that course and checks the role, Origin and CSRF token.
"""

from __future__ import annotations

import json
import re
from datetime import datetime

from flask import Blueprint, abort, g, redirect, render_template, request, url_for
from marshmallow import ValidationError
from sqlalchemy import select
from sqlalchemy.orm import Session
from werkzeug.wrappers import Response

from lti_service.core import content
from lti_service.core.auth import launch_url_args
from lti_service.core.authz import INSTRUCTOR, Access, Guard, Owned, PlacementAccess
from lti_service.core.content import EXERCISE_KINDS
from lti_service.core.extensions import db, state
from lti_service.core.models import LmsContext, LmsUser, Placement
from lti_service.core.spreadsheet import csv_text
from lti_service.instructor import forms
from lti_service.instructor.models import RosterCache
from lti_service.instructor.service import classview, desk, exports, items, roster
from lti_service.lti.service import outbound
from lti_service.outbox.models import ScoreOutbox
from lti_service.outbox.service import delivery as outbox
from lti_service.submissions import manual, messages, runs
from lti_service.submissions import service as submissions
from lti_service.submissions.models import Submission

bp = Blueprint("instructor", __name__, url_prefix="/instructor")
_LEARNER_KEY = re.compile(r"([0-9]{1,9})\.([0-9]{1,9})")


def _learner(session: Session, key: str) -> Owned | None:
    """``<placement id>.<user id>`` -> that learner at that placement, when the learner is of
    the placement's LMS course (on its roster, or with attempts there); the guard then checks
    the placement is of the instructor's own course."""
    found = _LEARNER_KEY.fullmatch(key)
    if found is None:
        return None
    placement = session.get(Placement, int(found[1]))
    user = session.get(LmsUser, int(found[2]))
    if placement is None or user is None or user.platform_id != placement.context.platform_id:
        return None
    cached = session.get(RosterCache, placement.context_id)
    listed = cached is not None and any(m.get("user_id") == user.sub for m in cached.members)
    if not listed and session.scalar(select(Submission.id).where(
            Submission.placement_id == placement.id, Submission.user_id == user.id)
            .limit(1)) is None:
        return None
    return Owned(user, placement.id, user.id)


guard = Guard(bp, source="page", owned={"learner": _learner})


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
                           launch_args=launch_url_args(), items=items.statistics(view),
                           names=_names(view))


def _names(view: classview.ClassView) -> dict[int, str]:
    """LMS user id -> the learner's name (the roster's), for every table that lists users."""
    by_sub = {row.sub: row.name for row in view.rows}
    return {r.user_id: by_sub.get(r.user.sub) or r.user.name or r.user.sub
            for r in view.outbox if r.user is not None}


def _csv(name: str, header: list[str], rows: object) -> Response:
    return Response(csv_text(header, rows), mimetype="text/csv",  # type: ignore[arg-type]
                    headers={"Content-Disposition": f"attachment; filename={name}"})


def _users(view: classview.ClassView) -> dict[str, LmsUser]:
    return {u.sub: u for u in db().scalars(select(LmsUser).where(
        LmsUser.platform_id == view.context.platform_id,
        LmsUser.sub.in_([row.sub for row in view.rows])))}


@bp.get("/exercise-attempts.csv")
@guard(INSTRUCTOR)
def attempts_csv(access: Access) -> Response:
    view = _view(access.context)
    return _csv("exercise-attempts.csv", exports.ATTEMPTS_HEADER,
                exports.exercise_attempts(db(), view, _users(view)))


@bp.get("/final-scores.csv")
@guard(INSTRUCTOR)
def final_csv(access: Access) -> Response:
    view = _view(access.context)
    course = state().course.get()
    maxima = {p.id: found.score_maximum for p in view.placements
              if (found := content.find(course, p.content_id)) is not None}
    return _csv("final-scores.csv", exports.FINAL_HEADER,
                exports.final_scores(db(), view, _users(view), maxima))


# --- the grading desk: one exercise placement, every learner of the roster -------------------

@bp.get("/desk/<int:placement_id>")
@guard(INSTRUCTOR, kinds=EXERCISE_KINDS)
def desk_view(access: PlacementAccess) -> tuple[str, int]:
    return _desk_page(access)


def _desk_page(access: PlacementAccess, errors: list[str] | None = None,
               status: int = 200) -> tuple[str, int]:
    session = db()
    found = roster.cached_members(session, access.context, rules=outbound.policy(state().config))
    users = desk.learners(session, access.context, found.members)
    return render_template(
        "desk.html", title=f"Grading desk: {access.placement.title}", placement=access.placement,
        item=access.item, rows=desk.rows(session, access.placement, users), roster=found,
        launch_args=launch_url_args(), errors=errors or [],
        saved=request.args.get("saved", "")[:20]), status


@bp.post("/desk/<int:placement_id>/due")
@guard(INSTRUCTOR, kinds=EXERCISE_KINDS)
def desk_due(access: PlacementAccess) -> Response | tuple[str, int]:
    try:
        data = forms.DueForm().load(request.form)
    except ValidationError as exc:
        return _desk_page(access, forms.messages(exc), 400)
    desk.set_due(db(), access.placement, data["due_at"])
    return redirect(url_for("instructor.desk_view", placement_id=access.placement.id,
                            saved="due", **launch_url_args()), code=303)


def _learner_page(access: PlacementAccess, errors: list[str] | None = None,
                  status: int = 200) -> tuple[str, int]:
    session, placement, user = db(), access.placement, access.owned
    row = desk.row_of(session, placement, user)
    delivered = session.scalars(select(ScoreOutbox).where(
        ScoreOutbox.placement_id == placement.id, ScoreOutbox.user_id == user.id)
        .order_by(ScoreOutbox.id.desc())).first()
    return render_template(
        "desk_learner.html", title=f"{row.name}: {placement.title}", placement=placement,
        item=access.item, row=row, user=user, key=f"{placement.id}.{user.id}",
        scores=manual.history(session, placement.id, user.id), delivered=delivered,
        outcome_of=messages.outcome_of, last_run=runs.latest(session, placement.id, user.id,
                                                             placement.content_id),
        launch_args=launch_url_args(), errors=errors or [],
        saved=request.args.get("saved", "")[:20]), status


@bp.get("/desk/learner/<learner>")
@guard(INSTRUCTOR, kinds=EXERCISE_KINDS)
def desk_learner(access: PlacementAccess) -> tuple[str, int]:
    return _learner_page(access)


def _back(access: PlacementAccess, saved: str) -> Response:
    return redirect(url_for("instructor.desk_learner",
                            learner=f"{access.placement.id}.{access.owned.id}", saved=saved,
                            **launch_url_args()) + "#saved", code=303)


@bp.post("/desk/learner/<learner>/allowance")
@guard(INSTRUCTOR, kinds=EXERCISE_KINDS)
def desk_allowance(access: PlacementAccess) -> Response | tuple[str, int]:
    try:
        data = forms.AllowanceForm().load(request.form)
    except ValidationError as exc:
        return _learner_page(access, forms.messages(exc), 400)
    desk.give(db(), access.placement, access.owned, extra_attempts=data["extra_attempts"],
              due_at=data["due_at"], reason=data["reason"])
    return _back(access, "allowance")


@bp.post("/desk/learner/<learner>/score")
@guard(INSTRUCTOR, kinds=EXERCISE_KINDS)
def desk_score(access: PlacementAccess) -> Response | tuple[str, int]:
    try:
        data = forms.ManualScoreForm().load(request.form)
        top, reason = access.item.score_maximum, data["reason"]
        score = data["score"]
        if score is None:  # an adjustment of the score the learner has now (0 if none)
            held = desk.row_of(db(), access.placement, access.owned).score
            score = min(top, max(0.0, (held[0] if held else 0.0) + data["adjust"]))
            reason = f"adjusted by {data['adjust']:+g}: {reason}"
        manual.set_score(db(), placement=access.placement, user=access.owned, score=score,
                         max_score=top, reason=reason, by=access.user,
                         submission_id=data["submission_id"])
    except ValidationError as exc:
        return _learner_page(access, forms.messages(exc), 400)
    except manual.ManualScoreError as exc:
        db().rollback()
        return _learner_page(access, [str(exc)], 400)
    return _back(access, "score")


def _local(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%dT%H:%M") if value else ""


bp.add_app_template_filter(_local, "datetime_local")


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
