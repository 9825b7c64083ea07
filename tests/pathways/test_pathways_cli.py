"""`pathways`: a command whose extra is not installed says which extra to install; any other
import failure (ours) propagates as the bug it is."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from pathways import cli


def test_a_missing_third_party_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(cli.COMMANDS, "serve", ("pathways_absent_dependency.web:serve", "x"))
    result = CliRunner().invoke(cli.cli, ["serve", "--help"])
    assert result.exit_code == 1
    assert "pip install 'jax-pathways[service]'" in result.output
    assert "pathways_absent_dependency is not installed" in result.output


def test_a_missing_module_of_ours_is_not_dressed_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(cli.COMMANDS, "serve", ("lti_service.no_such_module:serve", "x"))
    result = CliRunner().invoke(cli.cli, ["serve", "--help"])
    assert isinstance(result.exception, ModuleNotFoundError)
    assert "jax-pathways[" not in result.output
