"""Fixtures for the bench smoke tests: run a bench script as a real subprocess, the way
`make bench` does, with its results in a scratch folder (never the README's figures)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from bench_helpers import ROOT


@pytest.fixture
def run_bench(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    def run(script: str, *args: str, env: dict[str, str] | None = None,
            timeout: float = 300) -> subprocess.CompletedProcess[str]:
        full_env = {**os.environ, "JAX_PLATFORMS": "cpu",
                    "PATHWAYS_BENCH_RESULTS": str(tmp_path / "results"), **(env or {})}
        return subprocess.run([sys.executable, str(ROOT / "bench" / script), *args],
                              cwd=ROOT, env=full_env, capture_output=True, text=True,
                              timeout=timeout, check=False)

    return run

