"""What a SIGKILLed worker left behind (run directories, per-run cgroups), found by name and
removed when the worker starts again.

Every directory and cgroup a worker makes is named ``pathways-<worker name>-<pid>-…``
(``owner_tag``). At start-up a worker removes the entries with its own name whose pid is no
longer a live process: only its own leftovers, never those of a worker that is running (a
second worker given the same name by mistake keeps its runs).
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from grader_worker.sandbox import cgroups

logger = logging.getLogger(__name__)
_UNSAFE = re.compile(r"[^A-Za-z0-9_.]+")


def owner_prefix(worker_name: str) -> str:
    """``pathways-<name>-``: the start of everything that worker name owns."""
    return f"pathways-{_UNSAFE.sub('_', worker_name) or 'worker'}-"


def owner_tag(worker_name: str, pid: int | None = None) -> str:
    """``pathways-<name>-<pid>-``: the prefix of this process's directories and cgroups."""
    return f"{owner_prefix(worker_name)}{os.getpid() if pid is None else pid}-"


def _dead_owner(name: str, prefix: str) -> bool:
    """Whether ``name`` (``<prefix><pid>-…``) belongs to a process that no longer exists."""
    pid, _, _ = name[len(prefix):].partition("-")
    if not pid.isdigit():
        return False
    if int(pid) == os.getpid():
        return False
    return not Path(f"/proc/{pid}").exists()


@dataclass
class Swept:
    """What a start-up sweep removed (for the log and tests)."""

    dirs: list[Path] = field(default_factory=list)
    cgroups: list[Path] = field(default_factory=list)


def sweep(worker_name: str, *, tmp: Path | None = None,
          cgroup_root: str | None = None) -> Swept:
    """Remove the run directories (under ``tmp``) and cgroups left by dead processes of
    ``worker_name``."""
    prefix = owner_prefix(worker_name)
    swept = Swept()
    base = tmp or Path(tempfile.gettempdir())
    for entry in base.glob(f"{prefix}*"):
        if entry.is_dir() and not entry.is_symlink() and _dead_owner(entry.name, prefix):
            shutil.rmtree(entry, ignore_errors=True)
            if not entry.exists():
                swept.dirs.append(entry)
    swept.cgroups = cgroups.sweep(lambda name: name.startswith(prefix)
                                  and _dead_owner(name, prefix), root=cgroup_root)
    if swept.dirs or swept.cgroups:
        logger.warning("removed what a killed worker left behind",
                       extra={"dirs": [str(d) for d in swept.dirs],
                              "cgroups": [str(c) for c in swept.cgroups]})
    return swept
