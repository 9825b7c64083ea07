"""A JAX compilation cache that only the course's public programs write (docs/SANDBOX.md).

Most of a graded run's compiling is the lesson's own ``main.py``, which every submission of
the lesson starts with and every learner already has. ``warm`` runs those public programs
(each lesson's ``main.py`` on each device count its exercises use, and each project's
starter) once per host, each in a cold sandbox of its own whose only writable path besides
its tmpfs is an empty staging folder; the trusted side then moves what it finds there into
the cache, treating it as hostile (``adopt``: plain files, JAX's names, bounded sizes).
Every graded run, reference or learner, sees the cache read-only and is told never to write
(``read_env``), so no run's executables reach another run and no reference's compiled
program (an answer key) is ever in it.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import tempfile
import uuid
from collections.abc import Callable, Collection
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from course.tools.execute import jax_cache_env

MOUNT = "/grader/jax-cache"
"""Where runs see the cache (read-only), and a warm-up its staging folder (writable)."""
MARKS = ".warmed"
"""The cache's folder of programs already warmed (one empty file per program's digest)."""
ENTRY = re.compile(r"^[A-Za-z0-9_.\-]{1,200}-cache$")
"""A JAX cache entry's name: ``<module>-<hash>-cache``."""
MAX_ENTRY_BYTES = 64 * 1024 * 1024
MAX_ENTRIES_PER_PROGRAM = 2000


def read_env() -> dict[str, str]:
    """A graded run's JAX settings: read the cache; never write it (a compile is never slow
    enough to be written, so JAX does not even try the read-only folder)."""
    return {"JAX_COMPILATION_CACHE_DIR": MOUNT,
            "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "1e9"}


def write_env() -> dict[str, str]:
    """A warm-up's: every compilation is written, whatever its time or size (as `course
    check`'s trusted runs write theirs)."""
    return jax_cache_env(MOUNT)


@dataclass(frozen=True)
class PublicProgram:
    """A program every learner of ``name`` has, and the device count its runs get."""

    name: str
    source: str
    devices: int

    def digest(self, jax_version: str) -> str:
        text = f"{jax_version}\0{self.devices}\0{self.source}".encode()
        return hashlib.sha256(text).hexdigest()


def public_programs(course, exercise_ids: Collection[str] | None = None,  # noqa: ANN001
                    ) -> list[PublicProgram]:
    """Each lesson's ``main.py`` (the start of every submission of its exercises) on each
    device count they use, and each standalone exercise's starter (a project's file); only
    those of ``exercise_ids`` when given."""
    found: dict[tuple[str, int], PublicProgram] = {}
    for lesson, exercise in course.gradables():
        if exercise_ids is not None and exercise.id not in exercise_ids:
            continue
        if exercise.standalone:
            program = PublicProgram(exercise.id, exercise.starter_code, exercise.devices)
        else:
            program = PublicProgram(lesson.id, lesson.main_code, exercise.devices)
        found.setdefault((program.source, program.devices), program)
    return list(found.values())


@dataclass(frozen=True)
class Warmed:
    programs: int
    """Programs run this time (those already warmed are skipped)."""
    entries: int
    """Entries added to the cache."""
    failed: tuple[str, ...]
    """Programs whose warm-up run did not end cleanly (what they compiled is still adopted;
    they are run again by the next warm-up)."""


RunAll = Callable[[list[PublicProgram], Path], list[bool]]
"""Runs programs one after another with ``staging`` writable at MOUNT (a cold sandbox each,
or runs forked from one warm parent whose mount it is); for each, whether it ended cleanly."""


def warm(cache: Path, programs: list[PublicProgram], jax_version: str, run_all: RunAll,
         staging_parent: Path, owner: int | None = None, concurrency: int = 1) -> Warmed:
    """Warm ``cache`` with each program not yet marked there: the programs are dealt into
    ``concurrency`` shares, run side by side, each share into a fresh staging folder of its
    own (owned by ``owner``, the runs' uid, when the worker is root) adopted when it ends."""
    marks = cache / MARKS
    marks.mkdir(parents=True, exist_ok=True)
    todo = [p for p in programs if not (marks / p.digest(jax_version)).exists()]
    n = max(1, concurrency)
    shares = [todo[i::n] for i in range(n) if todo[i::n]]

    def one(share: list[PublicProgram]) -> tuple[list[bool], int]:
        staging = Path(tempfile.mkdtemp(prefix="jax-cache-", dir=staging_parent))
        try:
            if owner is not None:
                os.chown(staging, owner, owner)
            clean = run_all(share, staging)
            added = adopt(staging, cache, max_entries=MAX_ENTRIES_PER_PROGRAM * len(share))
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        for program, ok in zip(share, clean, strict=True):
            if ok:  # one that failed is tried again by the next warm-up
                (marks / program.digest(jax_version)).touch()
        return clean, added

    with ThreadPoolExecutor(max(1, len(shares)), thread_name_prefix="warm-cache") as pool:
        done = list(pool.map(one, shares))
    failed = [p.name for share, (clean, _) in zip(shares, done, strict=True)
              for p, ok in zip(share, clean, strict=True) if not ok]
    return Warmed(len(todo), sum(added for _, added in done), tuple(failed))


def adopt(staging: Path, cache: Path, *, max_bytes: int = MAX_ENTRY_BYTES,
          max_entries: int = MAX_ENTRIES_PER_PROGRAM) -> int:
    """Move the sandbox's cache entries from ``staging`` into ``cache``; returns how many.

    What the sandbox wrote is hostile: only regular files directly in ``staging`` with a JAX
    entry's name, at most ``max_bytes`` each and ``max_entries`` in all, are copied (opened
    without following links, read through the descriptor), each written to a temporary name
    and renamed, so a reader never sees half an entry; an entry already in the cache is kept."""
    moved = 0
    with os.scandir(staging) as it:
        for item in it:
            if moved >= max_entries:
                break
            if not ENTRY.match(item.name) or (cache / item.name).exists():
                continue
            try:
                fd = os.open(item.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError:
                continue  # a link, gone
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
                os.close(fd)  # a folder, a fifo, a device, too big
                continue
            with os.fdopen(fd, "rb") as source:
                data = source.read(max_bytes + 1)
            if len(data) > max_bytes:
                continue
            tmp = cache / f".{item.name}.{uuid.uuid4().hex}.tmp"
            tmp.write_bytes(data)
            os.chmod(tmp, 0o644)
            os.replace(tmp, cache / item.name)
            moved += 1
    return moved
