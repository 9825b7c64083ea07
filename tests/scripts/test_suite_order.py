"""The suite's file order (tests/conftest.py ``suite_order``, issue 26): the files that mostly
wait first, the longest next, the rest by their number of tests; every name it ranks exists."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("suite_conftest", ROOT / "tests" / "conftest.py")
assert _SPEC is not None and _SPEC.loader is not None
_SUITE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_SUITE)
WAIT_FIRST, LONGEST = _SUITE.WAIT_FIRST, _SUITE.LONGEST


def test_every_ranked_file_exists() -> None:
    """A renamed or removed file would silently fall back to the end of the suite."""
    names = WAIT_FIRST + LONGEST
    assert len(set(names)) == len(names)
    missing = [name for name in names if not (ROOT / "tests" / f"{name}.py").is_file()]
    assert missing == []


def test_collection_puts_files_in_the_suite_order() -> None:
    """What pytest hands the xdist workers: a waiting file, then a long one, then the rest
    with the most tests first, each file's tests kept together and in their own order."""
    files = ["tests/course/test_schemas.py", "tests/course/test_tools.py",
             "tests/course/test_render.py", "tests/chaos/test_reload.py"]
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         *files],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=True).stdout
    ids = [line for line in listed.splitlines() if "::" in line]
    order: list[str] = []
    for test_id in ids:
        name = test_id.split("::", 1)[0]
        if not order or order[-1] != name:
            order.append(name)
    assert len(order) == len(set(order)), "a file's tests were split up"
    counts = {name: sum(i.startswith(f"{name}::") for i in ids) for name in order}
    rest = [n for n in order if n not in ("tests/chaos/test_reload.py",
                                          "tests/course/test_tools.py")]
    assert order[:2] == ["tests/chaos/test_reload.py", "tests/course/test_tools.py"]
    assert [counts[n] for n in rest] == sorted((counts[n] for n in rest), reverse=True)
    by_file = [i for i in ids if i.startswith("tests/course/test_render.py::")]
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         "tests/course/test_render.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=True).stdout
    assert by_file == [line for line in collected.splitlines() if "::" in line]
