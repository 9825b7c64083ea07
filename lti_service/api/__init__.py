"""The ``api`` blueprint: JSON in, marshmallow-validated; errors are JSON with field messages
(one handler, ``lti_service.errors``)."""

from __future__ import annotations

from flask import Blueprint, abort, jsonify, request
from werkzeug.wrappers import Response

from ..auth import current_launch, require_instructor, require_learner
from ..extensions import db, state
from ..models import LmsUser
from ..placements import placement_for
from ..services import checkpoints, content
from .schemas import AnswerIn, AnswerOut, AttemptOut, PolicyIn, PolicyOut

bp = Blueprint("api", __name__, url_prefix="/api")


def _json_body() -> dict:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        abort(400, "send a JSON object body with Content-Type: application/json")
    return body


@bp.post("/placements/<int:placement_id>/checkpoint-answers")
@require_learner
def post_answer(placement_id: int) -> tuple[Response, int]:
    data = AnswerIn().load(_json_body())
    launch = current_launch()
    assert launch is not None
    placement = placement_for(launch, placement_id)
    item = content.find(state().course.get(), placement.content_id)
    if item is None or item.kind == "exercise":
        abort(404, "this activity has no checkpoint")
    session = db()
    user = session.get(LmsUser, launch.user_id)
    assert user is not None
    result = checkpoints.answer(session, placement=placement, user=user,
                                checkpoint=item.lesson.checkpoint, choice=data["choice"])
    session.commit()
    return jsonify(AnswerOut().dump(result)), 201


@bp.get("/placements/<int:placement_id>/my-attempts")
@require_learner
def my_attempts(placement_id: int) -> Response:
    launch = current_launch()
    assert launch is not None
    placement = placement_for(launch, placement_id)
    rows = checkpoints.attempts_of(db(), placement.id, launch.user_id)
    return jsonify({"attempts": AttemptOut(many=True).dump(rows)})


@bp.patch("/placements/<int:placement_id>/policy")
@require_instructor
def set_policy(placement_id: int) -> Response:
    data = PolicyIn().load(_json_body())
    launch = current_launch()
    assert launch is not None
    placement = placement_for(launch, placement_id)
    for key, value in data.items():
        setattr(placement, key, value)
    db().commit()
    return jsonify(PolicyOut().dump(placement))
