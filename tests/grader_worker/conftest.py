"""Fixtures for the grader: a real sandbox runner and the hostile corpus's canaries."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from grader_helpers import CANARY

from course.checks import HARNESS_PATH
from grader_worker.config import load_config
from grader_worker.runner import SandboxRunner


@pytest.fixture(scope="session")
def runner() -> Iterator[SandboxRunner]:
    r = SandboxRunner(load_config({"PATHWAYS_VAR_DIR": "var"}), HARNESS_PATH)
    yield r
    r.close()


@pytest.fixture(scope="session")
def secret_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A stand-in for the service's var/: a key and a database holding the canary."""
    d = tmp_path_factory.mktemp("var")
    (d / "keys").mkdir()
    (d / "keys" / "tool-private.pem").write_text(f"-----BEGIN PRIVATE KEY-----\n{CANARY}\n")
    (d / "pathways.sqlite3").write_text(CANARY)
    return d

