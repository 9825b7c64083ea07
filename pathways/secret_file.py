"""A generated secret kept in a file: made once, whole, by whichever process comes first."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path


def create_once(path: Path, make: Callable[[], str]) -> None:
    """Write ``make()`` to ``path`` (mode 0600) unless the file exists.

    The text is written to a file of this process's own and linked into place, so a process
    starting beside another (the web and a worker on a new install, two test workers) never
    reads the file empty or half written, and the first link wins for both.
    """
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    own = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(own, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(make())
        os.link(own, path)
    except FileExistsError:
        pass  # another process of this install made it first: theirs is the one
    finally:
        own.unlink(missing_ok=True)
