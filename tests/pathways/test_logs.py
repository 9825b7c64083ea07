"""The JSON-lines log every process configures (web, consumer, worker)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pathways import logs


@pytest.fixture
def restore_root() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def test_each_record_is_one_json_object_with_its_extra_fields() -> None:
    record = logging.makeLogRecord({"name": "lti_service.x", "levelname": "INFO",
                                    "msg": "graded %s", "args": ("sub-1",),
                                    "submission_id": "sub-1", "score": 0.5})
    line = logs.JsonFormatter().format(record)
    data = json.loads(line)
    assert "\n" not in line
    assert data["msg"] == "graded sub-1" and data["logger"] == "lti_service.x"
    assert data["submission_id"] == "sub-1" and data["score"] == 0.5


def test_fields_that_may_carry_secrets_or_learner_code_are_withheld() -> None:
    fields = {"id_token": "eyJ.secret", "grading_key": "k" * 40, "source": "import os",
              "stdout": "learner output", "launch_token": "lt", "authorization": "Bearer x"}
    data = json.loads(logs.JsonFormatter().format(logging.makeLogRecord({"msg": "m", **fields})))
    assert {name: data[name] for name in fields} == dict.fromkeys(fields, logs.MARK)
    kept = json.loads(logs.JsonFormatter().format(logging.makeLogRecord(
        {"msg": "m", "key_id": "kid-1", "platform": "moodle"})))
    assert kept["key_id"] == "kid-1" and kept["platform"] == "moodle"


def test_configure_sets_the_level_and_one_json_handler(restore_root: None,
                                                        capsys: pytest.CaptureFixture) -> None:
    logs.configure("warning")
    logging.getLogger("grader_worker.worker").info("hidden")
    logging.getLogger("grader_worker.worker").warning("shown", extra={"job": "j1"})
    lines = capsys.readouterr().err.splitlines()
    assert [json.loads(line)["msg"] for line in lines] == ["shown"]
    assert len(logging.getLogger().handlers) == 1


def test_the_wsgi_entry_point_logs_json_lines_at_the_configured_level(tmp_path: Path) -> None:
    # What gunicorn imports: its INFO lines must reach stderr as JSON, not vanish.
    code = ("import logging, lti_service.wsgi; "
            "logging.getLogger('lti_service.views').info('hello', extra={'id_token': 't'})")
    env = {**os.environ, "PATHWAYS_VAR_DIR": str(tmp_path), "PATHWAYS_LOG_LEVEL": "info",
           "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    lines = [json.loads(line) for line in run.stderr.splitlines() if line.startswith("{")]
    assert {"level": "INFO", "msg": "hello", "id_token": logs.MARK}.items() <= lines[-1].items()
