"""The JSON API described once: an OpenAPI 3 document generated from the marshmallow schemas.

``python scripts/openapi.py`` writes ``lti_service/openapi.json``, the file the tool serves
at ``/api/openapi.json`` (a test checks the committed file equals what this generates, and
schemathesis drives every operation in it against the real app). apispec is a development
dependency, so this generator lives outside the shipped package: the service serves the
committed file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from marshmallow import Schema, fields

from lti_service.checkpoints.schemas import AnswerIn, AnswerOut, AttemptOut, PolicyIn, PolicyOut

DOCUMENT = Path(__file__).resolve().parents[1] / "lti_service" / "openapi.json"
VERSION = "1"


class ErrorOut(Schema):
    """Every error of the JSON API (``core.http_errors``): a message, and per-field messages
    when the body had invalid fields."""

    error = fields.String(required=True)
    fields_ = fields.Dict(data_key="fields")


class AttemptsOut(Schema):
    attempts = fields.List(fields.Nested(AttemptOut), required=True)


def _errors(*statuses: int) -> dict[str, Any]:
    why = {400: "The body is not a JSON object, or the choice is not one of the checkpoint's",
           401: "No launch token, or an expired or invalid one",
           403: "The launch may not do this (another placement, a learner on an instructor "
                "operation, a foreign Origin)",
           404: "No such placement in the launch's course, or one of another kind",
           409: "No attempts left",
           413: "The body is larger than the tool accepts",
           422: "The body has invalid fields (unknown, wrong type, out of range)"}
    return {str(s): {"description": why[s],
                     "content": {"application/json": {"schema": "ErrorOut"}}} for s in statuses}


def _json(schema: str, description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


PLACEMENT = {"name": "placement_id", "in": "path", "required": True,
             "schema": {"type": "integer", "minimum": 1}}


def build() -> dict[str, Any]:
    spec = APISpec(title="JAX Pathways JSON API", version=VERSION, openapi_version="3.0.3",
                   plugins=[MarshmallowPlugin()],
                   info={"description": "Checkpoint answers and attempt policies. Bearer-only: "
                                        "the launch token in X-Pathways-Launch or "
                                        "Authorization: Bearer, never a cookie."})
    spec.components.security_scheme("launchHeader", {"type": "apiKey", "in": "header",
                                                     "name": "X-Pathways-Launch"})
    spec.components.security_scheme("bearer", {"type": "http", "scheme": "bearer"})
    for name, schema in (("ErrorOut", ErrorOut), ("AnswerIn", AnswerIn),
                         ("AnswerOut", AnswerOut), ("AttemptOut", AttemptOut),
                         ("AttemptsOut", AttemptsOut), ("PolicyIn", PolicyIn),
                         ("PolicyOut", PolicyOut)):
        spec.components.schema(name, schema=schema)
    secured = [{"launchHeader": []}, {"bearer": []}]
    spec.path(path="/api/placements/{placement_id}/checkpoint-answers", parameters=[PLACEMENT],
              operations={"post": {
                  "operationId": "answerCheckpoint", "security": secured,
                  "summary": "Answer the launched checkpoint (a learner)",
                  "requestBody": {"required": True,
                                  "content": {"application/json": {"schema": "AnswerIn"}}},
                  "responses": {"201": _json("AnswerOut", "The attempt, judged and counted"),
                                **_errors(400, 401, 403, 404, 409, 413, 422)}}})
    spec.path(path="/api/placements/{placement_id}/my-attempts", parameters=[PLACEMENT],
              operations={"get": {
                  "operationId": "myAttempts", "security": secured,
                  "summary": "The launched learner's attempts at the checkpoint",
                  "responses": {"200": _json("AttemptsOut", "Oldest first"),
                                **_errors(401, 403, 404)}}})
    spec.path(path="/api/placements/{placement_id}/policy", parameters=[PLACEMENT],
              operations={"patch": {
                  "operationId": "setPolicy", "security": secured,
                  "summary": "Change a placement's attempt policy (an instructor of its course)",
                  "requestBody": {"required": True,
                                  "content": {"application/json": {"schema": "PolicyIn"}}},
                  "responses": {"200": _json("PolicyOut", "The placement's policy now"),
                                **_errors(400, 401, 403, 404, 413, 422)}}})
    return spec.to_dict()


def render() -> str:
    return json.dumps(build(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":  # python scripts/openapi.py [--check]
    if sys.argv[1:] == ["--check"]:
        sys.exit(0 if DOCUMENT.read_text() == render() else "openapi.json is stale: run "
                 "python scripts/openapi.py")
    DOCUMENT.write_text(render())
