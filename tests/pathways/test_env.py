"""One configuration reader for every process (issue 26): a wrong value names the variable, the
type it needs and where it is documented, for the service, the consumer and the grader alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader_worker.config import load_config
from grading_contract.config import load_queue_config
from lti_service.core.config import Config
from pathways.env import DOCS, Env, EnvError


@pytest.mark.parametrize(("value", "kind", "expected"), [
    ("three", "integer", "a whole number from 1 to 100"),
    ("0", "integer", "a whole number from 1 to 100"),
    ("1e3", "integer", "a whole number from 1 to 100"),
    ("soon", "number", "a number above 0"),
    ("nan", "number", "a number above 0"),
    ("-1", "number", "a number above 0"),
    ("maybe", "flag", "1/true/yes/on or 0/false/no/off"),
])
def test_a_wrong_value_names_the_variable_the_type_and_the_docs(value: str, kind: str,
                                                                expected: str) -> None:
    env = Env({"PATHWAYS_X": value})
    read = {"integer": lambda: env.integer("PATHWAYS_X", 3, low=1, high=100),
            "number": lambda: env.number("PATHWAYS_X", 1.0, above=0),
            "flag": lambda: env.flag("PATHWAYS_X", False)}[kind]
    with pytest.raises(EnvError) as caught:
        read()
    assert str(caught.value) == (f"PATHWAYS_X={value!r}: expected {expected} "
                                 f"(see PATHWAYS_X in {DOCS})")
    assert caught.value.name == "PATHWAYS_X"


def test_unset_or_empty_gives_the_default_and_values_are_read_typed() -> None:
    env = Env({"A": "", "B": " 7 ", "C": "2.5", "D": "Yes", "E": "tpu"})
    assert env.integer("A", 4) == 4 and env.integer("MISSING", 5) == 5
    assert env.integer("B", 0) == 7 and env.number("C", 0.0) == 2.5 and env.flag("D", False)
    assert env.choice("E", "cpu", ("cpu", "tpu")) == "tpu"
    with pytest.raises(EnvError, match=r"E='tpu': expected one of cpu \(see E in"):
        env.choice("E", "cpu", ("cpu",))


def test_a_long_wrong_value_is_not_repeated_whole() -> None:
    with pytest.raises(EnvError) as caught:
        Env({"N": "x" * 10_000}).integer("N", 1)
    assert len(str(caught.value)) < 200


def test_the_service_names_its_variable(tmp_path: Path) -> None:
    base = {"PATHWAYS_VAR_DIR": str(tmp_path), "SECRET_KEY": "k" * 40}
    for name, value, expected in [
        ("CHECKPOINT_MAX_ATTEMPTS", "101", "a whole number from 1 to 100"),
        ("CHECKPOINT_COUNTING", "worst", "one of first, last, best"),
        ("OUTBOUND_TIMEOUT_S", "5s", "a number above 0 of at most 60"),
        ("OUTBOUND_ALLOW_PRIVATE", "sure", "1/true/yes/on or 0/false/no/off"),
        ("PATHWAYS_GRADING_MAX_TRIES", "many", "a whole number from 1 to 20"),
    ]:
        with pytest.raises(EnvError) as caught:
            Config.from_env(environ={**base, name: value})
        assert str(caught.value).startswith(f"{name}={value!r}: expected {expected} (see {name}")


def test_the_grader_names_its_variable_and_reuses_the_queue_settings(tmp_path: Path) -> None:
    env = {"PATHWAYS_VAR_DIR": str(tmp_path), "PATHWAYS_QUEUE_PREFIX": "t-"}
    with pytest.raises(EnvError, match="PATHWAYS_GRADER_HEARTBEAT_S='fast': expected a number"):
        load_config({**env, "PATHWAYS_GRADER_HEARTBEAT_S": "fast"})
    with pytest.raises(EnvError, match="PATHWAYS_GRADER_PLATFORM='gpu': expected one of cpu, tpu"):
        load_config({**env, "PATHWAYS_GRADER_PLATFORM": "gpu"})
    grader = load_config(env)
    assert grader.queue == load_queue_config(env)
    assert (grader.var_dir, grader.queue_prefix) == (tmp_path.resolve(), "t-")


def test_the_service_builds_its_queue_settings_from_its_own_var_dir(tmp_path: Path) -> None:
    """A test app's ``var_dir`` override and its queue's folder agree (they did not)."""
    cfg = Config.from_env({"var_dir": tmp_path / "app"}, environ={
        "PATHWAYS_VAR_DIR": str(tmp_path / "elsewhere"), "SECRET_KEY": "k" * 40,
        "REDIS_URL": "redis://127.0.0.1:1/0"})
    assert cfg.queue is not None
    assert cfg.queue.var_dir == (tmp_path / "app").resolve()
    assert cfg.queue.redis_url == "redis://127.0.0.1:1/0"
    assert cfg.queue.grading_key == (tmp_path / "app" / "grading_key").read_bytes().strip()


def test_a_command_says_which_variable_in_one_line(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from pathways.cli import cli

    done = CliRunner().invoke(cli, ["status"], env={
        "PATHWAYS_VAR_DIR": str(tmp_path), "CHECKPOINT_MAX_ATTEMPTS": "0"})
    assert done.exit_code == 1, done.output
    assert done.output.strip() == (
        "Error: CHECKPOINT_MAX_ATTEMPTS='0': expected a whole number from 1 to 100 "
        "(see CHECKPOINT_MAX_ATTEMPTS in docs/CONFIGURATION.md)")
