"""The order the suite's xdist workers take test files in (tests/conftest.py:file_order)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import file_order

ROOT = Path(__file__).resolve().parents[1]


def test_waiting_files_first_then_the_larger_files_then_as_collected() -> None:
    files = [("a.py", 3, False), ("b.py", 10, False), ("c.py", 1, True), ("d.py", 10, False),
             ("e.py", 2, True), ("f.py", 5, True)]
    assert file_order(files) == ["f.py", "e.py", "c.py", "b.py", "d.py", "a.py"]


def test_the_collected_suite_starts_with_the_waiting_files() -> None:
    """On the real suite: every file marked ``waits`` is collected before every other file,
    and the course's content runs stay last (tests/course/conftest.py)."""
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                           "-p", "no:cacheprovider", "tests/chaos", "tests/scripts",
                           "tests/test_module_sizes.py", "tests/course/test_content_runs.py"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    files = list(dict.fromkeys(line.split("::")[0] for line in done.stdout.splitlines()
                               if "::" in line))
    waiting = ["tests/chaos/test_chaos.py", "tests/chaos/test_reload.py",
               "tests/scripts/test_pytest_suite.py"]
    assert set(files[:3]) == set(waiting), files
    assert files[-1] == "tests/course/test_content_runs.py", files
