"""The built images (`make images`) and the engine they run in: what `make images-test`
(scripts/images-test.sh) runs, with PATHWAYS_IMAGES_TEST=1. Without it (`make test`) these tests
skip even where an engine runs: the stack takes fixed ports and minutes. Under
PATHWAYS_IMAGES_TEST=1 a missing engine or image is a failure, not a skip."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable

import pytest

REQUIRED = os.environ.get("PATHWAYS_IMAGES_TEST") == "1"
TAG = os.environ.get("PATHWAYS_IMAGE_TAG", "latest")
DOCKER = shutil.which("/usr/bin/docker") or shutil.which("docker") or "docker"
CODE_IMAGES = ("pathways-service", "pathways-grader-cpu", "pathways-grader-tpu")


def docker(*args: str, timeout: float = 300, check: bool = True) -> str:
    result = subprocess.run([DOCKER, *args], capture_output=True, text=True, timeout=timeout)
    if check:
        assert result.returncode == 0, f"docker {' '.join(args)[:300]}: {result.stderr[-2000:]}"
    return result.stdout


@pytest.fixture(scope="session")
def engine() -> Callable[..., str]:
    """`docker ...` as a function; skips (or fails under images-test) without an engine."""
    if not REQUIRED:
        pytest.skip("run by `make images-test` (PATHWAYS_IMAGES_TEST=1)")
    try:
        ok = subprocess.run([DOCKER, "info"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    if not ok:
        if REQUIRED:
            pytest.fail("PATHWAYS_IMAGES_TEST=1 but no Docker engine answers")
        pytest.skip("no Docker engine (make images-test starts one)")
    return docker


@pytest.fixture(scope="session")
def image(engine: Callable[..., str]) -> Callable[[str], str]:
    """name -> name:TAG, checked to exist (built by `make images`)."""

    def find(name: str) -> str:
        ref = f"{name}:{TAG}"
        missing = subprocess.run([DOCKER, "image", "inspect", ref], capture_output=True,
                                 timeout=60).returncode != 0
        if missing:
            if REQUIRED:
                pytest.fail(f"{ref} is not built (scripts/images.sh)")
            pytest.skip(f"{ref} is not built (make images)")
        return ref

    return find
