"""The JSON API described once (issue 25, item 7): the OpenAPI document is generated from the
marshmallow schemas (apispec), committed, served by the tool, and schemathesis drives every
operation in it against the real app, with generated (positive) and malformed (negative) inputs,
without a launch token, with a bad one, and with a learner's and an instructor's real launch:
no 500, and every answer matches the document (status, content type, body schema).

Kept short for CI: ``MAX_EXAMPLES`` per operation, mode and caller (about half a minute).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode, checks
from tool_pages import CHECKPOINT
from unit_launch import INSTRUCTOR, LEARNER, Platform, launch

_GENERATOR = Path(__file__).resolve().parents[2] / "scripts" / "openapi.py"
_spec = importlib.util.spec_from_file_location("pathways_openapi", _GENERATOR)
assert _spec is not None and _spec.loader is not None
openapi = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(openapi)  # a dev tool outside the shipped package (apispec: test extra)
DOCUMENT, build, render = openapi.DOCUMENT, openapi.build, openapi.render

MAX_EXAMPLES = 15


def test_the_committed_document_is_the_generated_one() -> None:
    assert DOCUMENT.read_text() == render(), "stale: run python scripts/openapi.py"


def test_the_tool_serves_the_document(client: FlaskClient) -> None:
    answer = client.get("/api/openapi.json")
    assert answer.status_code == 200 and answer.mimetype == "application/json"
    assert json.loads(answer.data) == build()
    answer.close()


def _callers(client: FlaskClient, platform: Platform) -> dict[str, tuple[dict[str, str], int]]:
    """Headers of each kind of caller, and the placement its launch is for."""
    learner, pid = launch(client, platform, sub="alice", role=LEARNER, context_id="course-1",
                          content_id=CHECKPOINT)
    teacher, _ = launch(client, platform, sub="terry", role=INSTRUCTOR, context_id="course-1",
                        content_id=CHECKPOINT)
    return {"no token": ({}, pid), "bad token": ({"X-Pathways-Launch": "x" * 40}, pid),
            "learner": ({"X-Pathways-Launch": learner}, pid),
            "instructor (bearer)": ({"Authorization": f"Bearer {teacher}"}, pid)}


def _driver(operation: Any, mode: GenerationMode, headers: dict[str, str],
            pid: int) -> Any:
    """A hypothesis test of one operation for one caller; half its cases name the launched
    placement, so the operations really run."""
    strategy = (operation.as_strategy(generation_mode=mode)
                | operation.as_strategy(generation_mode=mode,
                                        path_parameters={"placement_id": pid}))

    @given(case=strategy)
    @settings(max_examples=MAX_EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    def drive(case: Any) -> None:
        # A schema-valid choice need not be one of this checkpoint's (its keys are per
        # checkpoint): that documented 400 is no failure to accept valid data.
        case.call_and_validate(headers=headers,
                               excluded_checks=[checks.positive_data_acceptance])

    return drive


@pytest.mark.parametrize("mode", list(GenerationMode), ids=lambda m: m.value)
def test_schemathesis_finds_no_500_and_no_answer_off_the_document(
        app: Flask, client: FlaskClient, platform: Platform, mode: GenerationMode) -> None:
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) == len([op for path in build()["paths"].values() for op in path
                                   if op != "parameters"]) == 3
    for who, (headers, pid) in _callers(client, platform).items():
        for operation in operations:
            drive = _driver(operation, mode, headers, pid)
            try:
                drive()
            except Exception as exc:
                raise AssertionError(f"{who}, {operation.label}: {exc}") from exc


def test_two_launch_credentials_that_disagree_are_none(client: FlaskClient,
                                                       platform: Platform) -> None:
    """What schemathesis's ignored-auth check found: a valid Bearer beside an empty (or
    another) X-Pathways-Launch was accepted. Either one alone works; disagreeing, neither."""
    callers = _callers(client, platform)
    token = callers["learner"][0]["X-Pathways-Launch"]
    url = f"/api/placements/{callers['learner'][1]}/my-attempts"
    assert client.get(url, headers={"X-Pathways-Launch": token}).status_code == 200
    assert client.get(url, headers={"Authorization": f"Bearer {token}"}).status_code == 200
    both = {"X-Pathways-Launch": token, "Authorization": f"Bearer {token}"}
    assert client.get(url, headers=both).status_code == 200
    for headers in ({"X-Pathways-Launch": "", "Authorization": f"Bearer {token}"},
                    {"X-Pathways-Launch": token, "Authorization": "Bearer other"}):
        assert client.get(url, headers=headers).status_code == 401, headers
