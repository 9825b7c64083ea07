"""Every parse of Python source in the shipped packages goes through ``course.pysource``: CPython
3.11's ``ast.parse`` is not safe in two threads at once (python/cpython#106905: a spurious
SystemError), and `course check` and the grader parse from several threads."""

from __future__ import annotations

import ast
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from course import pysource

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("course", "grader_worker", "lti_service", "grading_contract", "pathways", "devlms")
CALL = re.compile(r"\bast\.parse\(|PyCF_ONLY_AST")


def test_no_shipped_module_calls_ast_parse_but_pysource() -> None:
    found = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "content" in path.relative_to(ROOT).parts or path.name == "pysource.py":
                continue  # course/content: lesson code, run in its own process
            found += [f"{path.relative_to(ROOT)}:{n}" for n, line in
                      enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                      if CALL.search(line)]
    assert not found, f"parse with course.pysource.parse: {found}"


def test_parses_from_many_threads_give_the_same_trees() -> None:
    source = "def f(x):\n" + "".join(f"    x = (x + {i}) * [{i}, ({i},)]\n" for i in range(200))
    want = ast.dump(ast.parse(source))
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda _: ast.dump(pysource.parse(source)), range(64)))
    assert got == [want] * 64


def test_the_interpreters_spurious_ast_error_is_retried_and_others_are_not() -> None:
    """python/cpython#106905 cannot be provoked on demand: a builder that fails the way the
    interpreter does stands in for the collision."""
    calls = []

    def collides_twice() -> ast.Module:
        calls.append(1)
        if len(calls) <= 2:
            raise SystemError("AST constructor recursion depth mismatch (before=39, after=62)")
        return ast.parse("x = 1")

    assert ast.dump(pysource.retried(collides_twice)) == ast.dump(ast.parse("x = 1"))
    assert len(calls) == 3

    def always() -> ast.Module:
        raise SystemError("AST constructor recursion depth mismatch (before=1, after=2)")

    with pytest.raises(SystemError):
        pysource.retried(always)

    def other() -> ast.Module:
        calls.append(1)
        raise SystemError("something else")

    calls.clear()
    with pytest.raises(SystemError, match="something else"):
        pysource.retried(other)
    assert len(calls) == 1
    with pytest.raises(SyntaxError):
        pysource.parse("def (")
