"""Fixtures for the deploy checks: system tools, skipped with the package to install."""

from __future__ import annotations

import shutil
from collections.abc import Callable

import pytest

PACKAGES = {"nginx": "nginx-light", "systemd-analyze": "systemd", "envsubst": "gettext-base"}


@pytest.fixture
def system_tool() -> Callable[[str], str]:
    """Returns a finder: the path of a system tool, or a skip naming the Debian package."""

    def find(name: str) -> str:
        path = shutil.which(name)
        if path is None:
            pytest.skip(f"{name} is not installed (apt-get install {PACKAGES.get(name, name)})")
        return path

    return find
