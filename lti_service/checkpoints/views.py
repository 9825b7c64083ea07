"""The ``api`` blueprint: JSON in, marshmallow-validated; errors are JSON with field messages
(one handler, ``lti_service.core.http_errors``).

Bearer-only: the launch token comes in the ``X-Pathways-Launch`` (or ``Authorization: Bearer``)
header, never from a cookie or the URL, so a cross-site page cannot act through it and no CSRF
token is needed. Who may call what is the guard's job (``lti_service.core.authz``).
"""

from __future__ import annotations

from flask import Blueprint, abort, jsonify, request
from werkzeug.wrappers import Response

from lti_service.checkpoints import answering as checkpoints_io
from lti_service.checkpoints import service as checkpoints
from lti_service.checkpoints.schemas import AnswerIn, AnswerOut, AttemptOut, PolicyIn, PolicyOut
from lti_service.core import request_keys
from lti_service.core.authz import INSTRUCTOR, LEARNER, Guard, PlacementAccess
from lti_service.core.content import CHECKPOINT_KINDS
from lti_service.core.extensions import db

bp = Blueprint("api", __name__, url_prefix="/api")
guard = Guard(bp, source="bearer")
# One instance each (marshmallow schemas keep no per-call state): building a schema costs more
# than the answer's load and dump together (issue 23, the answer's CPU budget).
_ANSWER_IN, _ANSWER_OUT = AnswerIn(), AnswerOut()


def _json_body() -> dict:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        abort(400, "send a JSON object body with Content-Type: application/json")
    return body


@bp.post("/placements/<int:placement_id>/checkpoint-answers")
@guard(LEARNER, kinds=CHECKPOINT_KINDS, rows=checkpoints_io.EARLIER_ROWS)
def post_answer(access: PlacementAccess) -> tuple[Response, int]:
    data = _ANSWER_IN.load(_json_body())
    result = checkpoints_io.answer_once(access, data["choice"],
                                        request_keys.from_request(data.get("request_key")))
    return jsonify(_ANSWER_OUT.dump(result)), 201


@bp.get("/placements/<int:placement_id>/my-attempts")
@guard(LEARNER, kinds=CHECKPOINT_KINDS)
def my_attempts(access: PlacementAccess) -> Response:
    rows = checkpoints.attempts_of(db(), access.placement.id, access.user.id)
    return jsonify({"attempts": AttemptOut(many=True).dump(rows)})


@bp.patch("/placements/<int:placement_id>/policy")
@guard(INSTRUCTOR)
def set_policy(access: PlacementAccess) -> Response:
    data = PolicyIn().load(_json_body())
    for key, value in data.items():
        setattr(access.placement, key, value)
    db().commit()
    return jsonify(PolicyOut().dump(access.placement))
