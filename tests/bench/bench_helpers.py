"""Helpers the bench smoke tests share (a module of its own: every test folder has a
conftest.py, so ``from conftest import`` would be ambiguous)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def json_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
