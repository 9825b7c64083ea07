"""The app factory: every blueprint always ships, so a broken import fails the app loudly."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from lti_service import create_app


def test_every_audience_has_its_blueprint(tmp_path: Path) -> None:
    app = create_app({"var_dir": tmp_path, "database_url": f"sqlite:///{tmp_path / 'db'}"})
    assert {"lti", "learner", "instructor", "api", "submissions"} <= set(app.blueprints)


def test_an_import_error_in_the_exercise_pages_is_not_swallowed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # sys.modules[name] = None makes `import name` raise ImportError, as a broken module would.
    monkeypatch.setitem(sys.modules, "lti_service.submissions", None)
    with pytest.raises(ImportError):
        create_app({"var_dir": tmp_path, "database_url": f"sqlite:///{tmp_path / 'db'}"})
