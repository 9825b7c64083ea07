"""What grading one exercise needs from the course, resolved by exercise id."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class GradingTarget:
    """What grading one exercise needs from the course (resolved by exercise id)."""

    checks_path: Path
    reference: Callable[[dict[str, Any]], str] | None = None
    """variant -> the reference solution's whole main.py (function exercises)."""
    params: dict[str, tuple[Any, ...]] | None = None
    """The declared variant parameters; None: unknown (a bare checks path), not validated."""
    checks_hash: str = ""
    course_version: str = ""
    devices: int = 1
    """Logical CPU devices the exercise declares (``course.devices``): every run of this job,
    the reference's too, gets them, with limits sized for them (``Limits.for_devices``)."""
