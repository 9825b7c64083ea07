"""Every third-party module a part imports (top level or inside a function) is declared by the
extra that installs that part: a missing one would break that image only, at run time."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
FIRST_PARTY = {"pathways", "course", "lti_service", "grader_worker", "grading_contract", "devlms"}
# Which extras must cover the imports of which files (every extra adds the base dependencies).
PARTS: dict[str, tuple[list[str], list[str]]] = {
    "pathways": (["pathways/__init__.py", "pathways/__main__.py", "pathways/cli.py",
                  "pathways/logs.py"], [""]),
    "demo command": (["pathways/demo.py", "devlms"], ["demo"]),
    "course tools": (["course"], ["author"]),
    "service": (["lti_service"], ["service"]),
    "grader": (["grader_worker"], ["grader"]),
    "grading contract (both sides)": (["grading_contract"], ["service", "grader"]),
}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared(extra: str) -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names: set[str] = set()
    pending = [*project["dependencies"], *project["optional-dependencies"].get(extra, [])]
    while pending:
        req = Requirement(pending.pop())
        if _norm(req.name) == "jax-pathways":  # an extra that includes other extras
            for sub in req.extras:
                pending += project["optional-dependencies"][sub]
        else:
            names.add(_norm(req.name))
    return names


def _imports(paths: list[str]) -> dict[str, str]:
    """Third-party top-level module -> one file that imports it."""
    found: dict[str, str] = {}
    files = [f for p in paths for f in ((ROOT / p).rglob("*.py") if (ROOT / p).is_dir()
                                        else [ROOT / p])]
    for file in files:
        if "content" in file.relative_to(ROOT).parts:  # lesson code: the learner's lock file
            continue
        for node in ast.walk(ast.parse(file.read_text(), str(file))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in FIRST_PARTY:
                    found.setdefault(top, str(file.relative_to(ROOT)))
    return found


@pytest.mark.parametrize("part", sorted(PARTS))
def test_each_import_is_declared_by_the_extra_that_installs_it(part: str) -> None:
    paths, extras = PARTS[part]
    dists = packages_distributions()
    for extra in extras:
        declared = _declared(extra)
        missing = {module: where for module, where in _imports(paths).items()
                   if not {_norm(d) for d in dists.get(module, [module])} & declared}
        assert not missing, f"[{extra or 'base'}] does not declare what {part} imports: {missing}"
