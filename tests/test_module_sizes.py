"""Every line in its room (issue 26): no module of ours over 400 lines, no function over 60
without a reason written here. A module that grows past the line is split by what its parts
do (as grader_worker/warm.py and warm_parent.py; harness_calls.py, harness_facts.py and
harness_jax.py)."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
LONG_FUNCTIONS = {
    ("lti_service/migrations/versions/0001_lti_core.py", "upgrade"):
        "a migration is the list of the tables it creates, one statement each",
}
"""(path, function): why it is longer than MAX_FUNCTION_LINES."""


def _modules() -> list[str]:
    """Our Python files: what ships, the benches, scripts and the stand-in LMS; not the
    tests, and not the course's lesson programs (content the learner reads whole)."""
    listed = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.split()
    return [p for p in listed if not p.startswith(("tests/", "course/content/"))]


def test_the_file_list_is_real() -> None:
    modules = _modules()
    assert "grader_worker/warm.py" in modules and "course/checks/harness_calls.py" in modules
    assert not any(p.startswith("course/content/") for p in modules)


def test_no_module_is_over_400_lines() -> None:
    long = {p: n for p in _modules()
            if (n := len((ROOT / p).read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert long == {}


def test_no_function_is_over_60_lines_without_a_reason() -> None:
    long = {}
    for path in _modules():
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES and (path, node.name) not in LONG_FUNCTIONS:
                    long[f"{path}:{node.name}"] = lines
    assert long == {}
    stale = [key for key in LONG_FUNCTIONS if not (ROOT / key[0]).is_file()]
    assert stale == [], "a reason for a function that is gone"
