"""deploy/local/stack.sh's interface (its `up` is exercised by tests/e2e)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STACK = ROOT / "deploy" / "local" / "stack.sh"


def stack(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(STACK), *args], capture_output=True, text=True,
                          timeout=60, env={**os.environ, **env})


def test_env_names_its_own_state_and_ports_never_the_test_servers(tmp_path: Path) -> None:
    result = stack("env", PATHWAYS_STACK_DIR=str(tmp_path), PATHWAYS_STACK_HTTPS_PORT="50443",
                   PATHWAYS_STACK_LMS_PORT="50001", PATHWAYS_STACK_PG_PORT="50432",
                   PATHWAYS_STACK_REDIS_PORT="50379")
    assert result.returncode == 0, result.stderr
    exported = dict(re.findall(r"^export (\w+)=(.*)$", result.stdout, re.M))
    assert exported["STACK_TOOL_URL"] == "https://localhost:50443"
    assert exported["STACK_LMS_URL"] == "http://127.0.0.1:50001"
    assert exported["DATABASE_URL"].endswith("@127.0.0.1:50432/pathways")
    assert exported["REDIS_URL"] == "redis://127.0.0.1:50379/0"
    assert exported["PATHWAYS_VAR_DIR"] == f"{tmp_path}/tool"
    assert "test-services" not in result.stdout


def test_default_ports_differ_from_the_test_servers() -> None:
    exported = dict(re.findall(r"^export (\w+)=(.*)$", stack("env").stdout, re.M))
    assert ":55432/" not in exported["DATABASE_URL"] and ":56379/" not in exported["REDIS_URL"]


def test_unknown_command_or_part_is_refused_with_the_choices(tmp_path: Path) -> None:
    bad_part = stack("up", "database", PATHWAYS_STACK_DIR=str(tmp_path))
    assert bad_part.returncode == 2 and "unknown part 'database': use one of" in bad_part.stderr
    bad_cmd = stack("restart", PATHWAYS_STACK_DIR=str(tmp_path))
    assert bad_cmd.returncode == 2 and "usage:" in bad_cmd.stderr
    assert not any(tmp_path.iterdir()), "nothing is started or written on bad input"


def test_status_of_a_stack_that_is_not_running(tmp_path: Path) -> None:
    result = stack("status", PATHWAYS_STACK_DIR=str(tmp_path))
    assert result.returncode == 1
    assert "web: down" in result.stdout and "lms: down" in result.stdout
