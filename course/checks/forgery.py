"""A static rule in the trusted process: a submission that changes Python or JAX is refused.

The harness reports facts from inside the sandbox, where the learner's code also ran; code
that rebinds ``jax.make_jaxpr``, the clock, ``sys.modules``, builtins or reaches into frames
could forge them. No exercise needs any of that, so such a program scores nothing, with a
message that names the line: forging the checker must never be cheaper than the skill.
What stays forgeable without these tools is listed in docs/SANDBOX.md.
"""

from __future__ import annotations

import ast

from course import pysource

MAX_SOURCE_CHARS = 256 * 1024
MAX_LINE_CHARS = 4000
"""Parsing is paid by the trusted process: a 224 KB line of nested f-string format specs costs
``ast.parse`` ~3 s of CPU. No exercise needs a line this long; such a file is not read."""


def unreadable(source: str) -> str | None:
    """Why the trusted process will not parse ``source`` (too long, a line too long)."""
    if len(source) > MAX_SOURCE_CHARS:
        return f"the file is longer than {MAX_SOURCE_CHARS} characters"
    if any(len(line) > MAX_LINE_CHARS for line in source.splitlines()):
        return f"a line is longer than {MAX_LINE_CHARS} characters"
    return None
MODULES = frozenset({"builtins", "gc", "ctypes", "inspect", "importlib", "types", "harness",
                     "harness_calls", "harness_facts", "harness_jax", "__main__", "sitecustomize",
                     "threading", "multiprocessing", "signal"})
"""Modules that reach the interpreter's own machinery (frames, objects, imports)."""
ATTRIBUTES = frozenset({
    "__builtins__", "__import__", "__globals__", "__code__", "__closure__", "__dict__",
    "__setattr__", "__delattr__", "__subclasses__", "__class__", "__bases__", "__mro__",
    "f_back", "f_globals", "f_locals", "f_code", "f_builtins", "tb_frame", "gi_frame",
    "cr_frame", "modules", "_getframe", "settrace", "setprofile", "meta_path", "path_hooks",
    "addaudithook", "monitoring"})
CALLS = frozenset({"setattr", "delattr", "exec", "eval", "compile", "globals", "vars",
                   "__import__", "breakpoint"})


def _imported(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def _base(node: ast.AST) -> ast.AST:
    """What an attribute or item chain starts from (``x`` of ``x.a[0].b``, a call's node)."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node


def _root(node: ast.AST) -> str:
    base = _base(node)
    return base.id if isinstance(base, ast.Name) else ""


def _aliases(tree: ast.AST, modules: set[str]) -> set[str]:
    """``modules`` and every name bound to a part of one (``A = jax.Array``, ``f = A.x``,
    ``A := ...``), to a fixed point: a rebinding through an alias is the same rebinding."""
    found = set(modules)
    pairs: list[tuple[list[ast.AST], ast.AST]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            pairs.append((node.targets, node.value))
        elif isinstance(node, ast.AnnAssign | ast.NamedExpr) and node.value is not None:
            pairs.append(([node.target], node.value))
    grew = True
    while grew:
        grew = False
        for targets, value in pairs:
            if _root(value) not in found:
                continue
            for target in targets:
                for part in ast.walk(target):
                    if isinstance(part, ast.Name) and part.id not in found:
                        found.add(part.id)
                        grew = True
    return found


def _why(node: ast.AST, modules: set[str]) -> str | None:
    if isinstance(node, ast.Import | ast.ImportFrom):
        for alias in node.names:
            top = (alias.name if isinstance(node, ast.Import) else node.module or "")
            if top.split(".")[0] in MODULES:
                return f"it imports `{top.split('.')[0]}`"
    if isinstance(node, ast.Attribute) and node.attr in ATTRIBUTES:
        return f"it reaches `.{node.attr}`"
    if isinstance(node, ast.Name) and node.id in ATTRIBUTES - {"modules"}:
        return f"it uses `{node.id}`"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CALLS:
        return f"it calls `{node.func.id}()`"
    targets: list[ast.AST] = []
    if isinstance(node, ast.Assign | ast.Delete):
        targets = list(node.targets)
    elif isinstance(node, ast.AugAssign | ast.AnnAssign):
        targets = [node.target]
    for target in targets:
        for part in ast.walk(target):
            if not isinstance(part, ast.Attribute):
                continue
            if _root(part) in modules:
                return f"it rebinds `{_root(part)}...{part.attr}`, part of a module it imported"
            if isinstance(_base(part), ast.Call):  # type(x).attr = ...: whatever it returned
                return f"it rebinds `.{part.attr}` of what a call returned"
    return None


def forgery(source: str) -> str | None:
    """Why ``source`` is refused (it changes Python or JAX), or None."""
    if unreadable(source):
        return None  # the static rules fail on such a file, with the reason
    try:
        tree = pysource.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None  # reported as the program's syntax error
    modules = _aliases(tree, _imported(tree))
    lines = source.splitlines()
    for node in ast.walk(tree):
        why = _why(node, modules)
        if why:
            line = getattr(node, "lineno", 0)
            text = lines[line - 1].strip()[:120] if 0 < line <= len(lines) else ""
            return (f"main.py line {line} (`{text}`): {why}. The grader refuses a program that "
                    "changes Python, JAX or the grader itself (module attributes, sys.modules, "
                    "builtins, frames): no exercise needs it. Solve the exercise with JAX as the "
                    "lesson uses it")
    return None
