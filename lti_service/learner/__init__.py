"""The ``learner`` blueprint: the lesson page inside the LMS and the checkpoint answer form."""

from __future__ import annotations

from flask import Blueprint, abort, render_template, request, send_file, url_for
from werkzeug.wrappers import Response

from ..auth import current_launch, launch_url_args, require_learner
from ..extensions import db, state
from ..models import LmsUser
from ..placements import placement_for
from ..services import checkpoints, content
from .page import lesson_fragment, lesson_styles

bp = Blueprint("learner", __name__, url_prefix="/learn")


def _page(placement_id: int, result: checkpoints.AnswerResult | None = None, status: int = 200):  # type: ignore[no-untyped-def]
    launch = current_launch()
    assert launch is not None
    placement = placement_for(launch, placement_id)
    course = state().course.get()
    item = content.find(course, placement.content_id)
    if item is None:
        abort(404, f"content {placement.content_id!r} is no longer in the course")
    attempts = checkpoints.attempts_of(db(), placement.id, launch.user_id)
    action = url_for("learner.answer", placement_id=placement.id)
    seen = checkpoints.checkpoint_for(item.lesson.checkpoint, placement, launch.user_id)
    fragment = lesson_fragment(item.lesson, action, launch_url_args(), checkpoint=seen)
    return render_template(
        "lesson.html",
        title=item.title,
        item=item,
        fragment=fragment,
        styles=lesson_styles(),
        placement=placement,
        attempts=attempts,
        attempts_left=max(placement.max_attempts - len(attempts), 0),
        result=result,
        launch_args=launch_url_args(),
    ), status


@bp.get("/<int:placement_id>")
@require_learner
def lesson(placement_id: int):  # type: ignore[no-untyped-def]
    return _page(placement_id)


@bp.post("/<int:placement_id>/answer")
@require_learner
def answer(placement_id: int):  # type: ignore[no-untyped-def]
    launch = current_launch()
    assert launch is not None
    placement = placement_for(launch, placement_id)
    item = content.find(state().course.get(), placement.content_id)
    assert item is not None
    choice = request.form.get("choice", "")
    session = db()
    user = session.get(LmsUser, launch.user_id)
    assert user is not None
    result = checkpoints.answer(session, placement=placement, user=user,
                                checkpoint=item.lesson.checkpoint, choice=choice)
    session.commit()
    return _page(placement_id, result)


@bp.get("/<int:placement_id>/figure.png")
@require_learner
def figure(placement_id: int) -> Response:
    launch = current_launch()
    assert launch is not None
    placement = placement_for(launch, placement_id)
    item = content.find(state().course.get(), placement.content_id)
    if item is None or not item.lesson.figure.image_path.is_file():
        abort(404, "this lesson has no figure image")
    return send_file(item.lesson.figure.image_path, mimetype="image/png")
