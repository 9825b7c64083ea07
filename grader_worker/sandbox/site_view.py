"""What the sandbox's Python may import: the standard library and an allow-list of distributions.

Why: a regular install (``pip install .``, a wheel, as the Dockerfiles do) puts this project's
packages, course content included (hidden ``checks.py``, reference ``solution.py``), into the
same site-packages as JAX. Binding the interpreter's environment whole would hand them to
every submission. So each site-packages directory the interpreter could use is replaced in the
sandbox by an empty read-only tmpfs into which only the files of the allowed distributions
(numpy, jax and what they require) are bound. Hidden checks stay where only the trusted
process reads them.

The interpreter is asked once (outside the sandbox; it is the worker's own, trusted) where its
standard library and site directories are and which files the allowed distributions own.
"""

from __future__ import annotations

import functools
import glob
import json
import os
import subprocess
from dataclasses import dataclass

from grader_worker.errors import SandboxUnavailable

DEFAULT_PACKAGES = ("jax", "numpy", "optax")
"""Roots of the allow-list; their requirements (not extras) are added. optax: Phase 03's lessons
and the train-from-scratch project train with it (docs/SANDBOX.md)."""
TPU_PACKAGES = ("libtpu",)

# Runs under the sandbox's interpreter, outside the sandbox: stdlib only.
_PROBE = r"""
import glob, importlib.metadata as md, json, os, re, site, sys
def norm(name):
    return re.sub(r"[-_.]+", "-", name or "").lower()
dists = {}
for d in md.distributions():
    dists.setdefault(norm(d.metadata["Name"]), d)  # the first on sys.path wins, as for import
want, todo = set(), [norm(n) for n in sys.argv[1].split(",") if n]
while todo:
    name = todo.pop()
    if name in want or name not in dists:
        continue
    want.add(name)
    for req in dists[name].requires or []:
        if "extra ==" not in req.replace("extra==", "extra =="):
            todo.append(norm(re.match(r"[A-Za-z0-9._-]+", req).group()))
entries, owned_pth = set(), set()
for name, d in dists.items():
    base = os.path.realpath(str(d.locate_file("")))
    for f in d.files or []:
        if f.parts and f.parts[0] != "..":
            path = os.path.join(base, f.parts[0])
            if name in want:
                entries.add(path)
            if f.suffix == ".pth":
                owned_pth.add(path)
sites = {p for p in sys.path if os.path.basename(p) in ("site-packages", "dist-packages")}
sites.update(site.getsitepackages())
pth = []
for s in sites:
    for p in glob.glob(os.path.join(s, "*.pth")):
        lines = [x.strip() for x in open(p, encoding="utf-8", errors="replace")]
        if os.path.realpath(p) not in owned_pth and not any(
                x.startswith(("import ", "import\t")) for x in lines):
            pth.append(os.path.realpath(p))
print(json.dumps({"prefixes": sorted({os.path.realpath(p) for p in (
                     sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}),
                  "sites": sorted(os.path.realpath(s) for s in sites if os.path.isdir(s)),
                  "entries": sorted(e for e in entries if os.path.lexists(e)),
                  "pth": sorted(pth), "packages": sorted(want)}))
"""

SITE_GLOBS = ("lib/python3*/site-packages", "lib/python3*/dist-packages",
              "lib/python3/dist-packages", "local/lib/python3*/site-packages",
              "local/lib/python3*/dist-packages")


class SiteViewError(SandboxUnavailable):
    """The sandbox's interpreter could not describe its environment, or lacks a package."""


@dataclass(frozen=True)
class SiteView:
    """The interpreter's prefixes, the site directories to hide and what to show in them."""

    prefixes: tuple[str, ...]
    sites: tuple[str, ...]
    entries: tuple[str, ...]
    pth: tuple[str, ...]
    packages: tuple[str, ...]

    def hidden_sites(self, roots: list[str]) -> list[str]:
        """Every site directory on the interpreter's path or under a bound root, as the
        sandbox sees it (under a root bound through a symlink, by that path, not the target):
        each is shown only through the allow-list."""
        found = set(self.sites)
        for root in roots:
            for pattern in SITE_GLOBS:
                found.update(os.path.normpath(p) for p in glob.glob(os.path.join(root, pattern))
                             if os.path.isdir(p))
        # Outermost first, so a nested site directory is made inside its parent's tmpfs.
        return sorted(found, key=lambda p: (p.count("/"), p))

    def bwrap_args(self, roots: list[str]) -> list[str]:
        """Arguments, after the roots are bound, that replace each site directory by a tmpfs
        holding only the allowed distributions' files, then make it read-only."""
        args: list[str] = []
        sites = self.hidden_sites(roots)
        for site in sites:
            args += ["--perms", "0755", "--tmpfs", site]
        for site in sites:
            real = os.path.realpath(site)
            for entry in (*self.entries, *self.pth):
                if os.path.dirname(entry) == real:
                    args += ["--ro-bind", entry, os.path.join(site, os.path.basename(entry))]
        for site in reversed(sites):
            args += ["--remount-ro", site]
        return args


@functools.cache
def probe(python: str, packages: tuple[str, ...]) -> SiteView:
    """Ask ``python`` (outside the sandbox) for its view; cached per interpreter."""
    done = subprocess.run([python, "-I", "-c", _PROBE, ",".join(packages)], capture_output=True,
                          text=True, timeout=60, env={"PATH": "/usr/bin:/bin"}, check=False)
    try:
        data = json.loads(done.stdout)
        view = SiteView(*(tuple(data[k]) for k in ("prefixes", "sites", "entries", "pth",
                                                     "packages")))
    except (ValueError, KeyError, TypeError) as exc:
        raise SiteViewError(f"{python} could not list its packages (exit {done.returncode}): "
                            f"{done.stderr[-500:]}") from exc
    missing = {p.lower() for p in packages if p not in TPU_PACKAGES} - set(view.packages)
    if missing:
        raise SiteViewError(f"{python} has no {sorted(missing)}: install them in the "
                            "grader's environment")
    return view
