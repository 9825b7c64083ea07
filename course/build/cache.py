"""Cache keys for build outputs: a content hash of everything an output is made from (input
files, rendered data, the code that makes it, package versions). Same key, same output, so a
no-change build only hashes and compares."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable
from functools import lru_cache
from importlib import metadata
from pathlib import Path

log = logging.getLogger(__name__)

MANIFEST = ".build-cache.json"
# The packages whose behaviour shapes the outputs; a version change rebuilds what they make.
PACKAGES = ("jax-pathways", "jax", "jaxlib", "numpy", "matplotlib", "markdown-it-py",
            "mdit-py-plugins", "pygments", "latex2mathml", "nbformat", "nbclient", "ipykernel")

Input = str | bytes | Path


@lru_cache(maxsize=1)
def package_versions() -> str:
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "absent"
    return json.dumps(versions, sort_keys=True)


@lru_cache(maxsize=4096)
def _file_digest(path: Path, size: int, mtime_ns: int) -> str:
    # size and mtime are part of the cache key of this memo only, never of a build key:
    # a touched file with the same bytes keeps its build key.
    return hashlib.sha256(path.read_bytes()).hexdigest()


def file_digest(path: Path) -> str:
    stat = path.stat()
    return _file_digest(path, stat.st_size, stat.st_mtime_ns)


def tree_files(folder: Path, *, exclude: Iterable[str] = ()) -> list[Path]:
    """Files under ``folder`` in a stable order, without caches and excluded top-level names."""
    skip = set(exclude)
    return sorted(
        p for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and ".ruff_cache" not in p.parts
        and p.relative_to(folder).parts[0] not in skip
    )


def key_of(name: str, inputs: Iterable[Input]) -> str:
    """The cache key of output ``name`` made from ``inputs`` with today's package versions."""
    h = hashlib.sha256()
    h.update(name.encode())
    h.update(package_versions().encode())
    for item in inputs:
        if isinstance(item, Path):
            h.update(b"\0file\0" + item.name.encode() + b"\0" + file_digest(item).encode())
        elif isinstance(item, bytes):
            h.update(b"\0bytes\0" + hashlib.sha256(item).digest())
        else:
            h.update(b"\0text\0" + item.encode())
    return h.hexdigest()


def tree_fingerprint(folders: Iterable[Path], files: Iterable[Path]) -> str:
    """One hash of every file under ``folders`` (path and bytes) and of ``files``, with the
    package versions: equal fingerprints mean a build would make the same outputs."""
    h = hashlib.sha256(package_versions().encode())
    for folder in folders:
        for path in tree_files(folder):
            h.update(f"{folder.name}/{path.relative_to(folder)}\0{file_digest(path)}\n".encode())
    for path in files:
        digest = file_digest(path) if path.is_file() else "absent"
        h.update(f"{path.name}\0{digest}\n".encode())
    return h.hexdigest()


class Manifest:
    """output path -> key of the build that wrote it, stored in the output folder."""

    def __init__(self, out: Path) -> None:
        self.path = out / MANIFEST
        self.keys: dict[str, str] = {}
        if self.path.is_file():
            try:
                self.keys = dict(json.loads(self.path.read_text()))
            except (ValueError, TypeError):
                log.warning("ignoring unreadable build cache %s: everything is rebuilt", self.path)

    TREE = "@tree"  # reserved entries start with "@": never an output path

    def tree_fresh(self, out: Path, fingerprint: str) -> list[str] | None:
        """The outputs of the last build if it saw this fingerprint and they all still exist."""
        if self.keys.get(self.TREE) != fingerprint:
            return None
        names = [n for n in self.keys if not n.startswith("@")]
        return names if all((out / n).is_file() for n in names) else None

    def fresh(self, out: Path, name: str, key: str) -> bool:
        return self.keys.get(name) == key and (out / name).is_file()

    def record(self, name: str, key: str) -> None:
        self.keys[name] = key

    def save(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.keys, indent=1, sort_keys=True) + "\n")
        tmp.replace(self.path)
