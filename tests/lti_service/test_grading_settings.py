"""Grading leases come from one place: the web that writes them and the consumer that reaps
them read the same service configuration."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from lti_service import create_app
from lti_service.consumer import consumer
from lti_service.core.config import Config
from lti_service.submissions.panel import settings
from lti_service.submissions.settings import GradingSettings


@pytest.fixture
def grading_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("PATHWAYS_VAR_DIR", str(tmp_path))
    monkeypatch.setenv("PATHWAYS_QUEUED_LEASE_S", "300")
    monkeypatch.setenv("PATHWAYS_RUNNING_LEASE_S", "12")
    monkeypatch.setenv("PATHWAYS_GRADING_MAX_TRIES", "5")
    return tmp_path


def test_the_web_and_the_consumer_use_the_same_leases(grading_env: Path) -> None:
    app = create_app({"database_url": f"sqlite:///{grading_env / 'db.sqlite3'}"})
    with app.app_context():
        web = settings()
    consumer_side = GradingSettings.from_config(Config.from_env())
    assert web == consumer_side
    assert (web.queued_lease_s, web.running_lease_s, web.max_tries) == (300.0, 12.0, 5)


def test_the_consumer_has_no_lease_options_of_its_own() -> None:
    # An option here would let the consumer reap with a lease the web never wrote.
    result = CliRunner().invoke(consumer, ["--queued-lease", "300"])
    assert result.exit_code == 2 and "No such option" in result.output


@pytest.mark.parametrize(("name", "value"), [("PATHWAYS_GRADING_MAX_TRIES", "0"),
                                             ("PATHWAYS_QUEUED_LEASE_S", "-1"),
                                             ("OUTBOX_RETRY_BASE_S", "0")])
def test_a_bad_grading_setting_stops_the_process(grading_env: Path, monkeypatch: pytest.MonkeyPatch,
                                                 name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=name):
        Config.from_env()


def test_overrides_are_named_settings_and_a_misspelt_one_is_refused(grading_env: Path) -> None:
    """A test's or bench's overrides are Config's own fields (``grading``: GradingSettings
    fields beyond the environment's); nothing unknown is kept aside and silently ignored."""
    cfg = Config.from_env({"grading": {"runs_per_window": 2, "max_source_bytes": 1024}})
    got = GradingSettings.from_config(cfg)
    assert (got.runs_per_window, got.max_source_bytes, got.max_tries) == (2, 1024, 5)
    with pytest.raises(ValueError, match="unknown configuration overrides: \\['grading_tries'\\]"):
        Config.from_env({"grading_tries": 4})
    with pytest.raises(ValueError, match="grading settings: unknown \\['tries'\\]"):
        GradingSettings.from_config(Config.from_env({"grading": {"tries": 4}}))
