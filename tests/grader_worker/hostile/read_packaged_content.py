# expect: exception
# A regular install puts the course (hidden checks, solutions) next to jax in site-packages.
import glob
import importlib
import os
import sys

found = []
for name in ("course", "grader_worker", "lti_service", "pathways", "flask", "pylti1p3"):
    try:
        found.append(importlib.import_module(name).__name__)
    except ImportError:
        pass
prefixes = {sys.prefix, sys.base_prefix, "/usr", "/usr/local", "/opt"}
dirs = {p for p in sys.path if os.path.isdir(p)}
for prefix in prefixes:
    dirs.update(glob.glob(f"{prefix}/lib/python3*/*-packages"))
for d in dirs:
    found += glob.glob(f"{d}/*/content/**/solution.py", recursive=True)
    found += glob.glob(f"{d}/*/content/**/checks.py", recursive=True)
    found += glob.glob(f"{d}/jax_pathways*")
assert found, "nothing of the project is visible"
print(found[:5])
for path in found:
    if path.endswith(".py"):
        print(open(path).read())
        break
