"""What every result line carries so a figure can be read honestly later: when, on what
machine, under what load, from which command; and the one way lines are appended."""

from __future__ import annotations

import json
import os
import platform
import shlex
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

# PATHWAYS_BENCH_RESULTS: where the benches write (the smoke tests point it at a scratch folder
# so a test run never becomes the README's "latest figures").
RESULTS = Path(os.environ.get("PATHWAYS_BENCH_RESULTS")
               or Path(__file__).resolve().parent / "results")


def loadavg() -> list[float]:
    """1, 5 and 15 minute load averages: other engineers' work shares these two cores."""
    return [round(x, 2) for x in os.getloadavg()]


def environment() -> dict[str, Any]:
    return {
        "timestamp": datetime.now(UTC).isoformat(timespec="seconds"),
        "host": platform.node(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "command": "python " + shlex.join(["bench/" + Path(sys.argv[0]).name, *sys.argv[1:]]),
    }


def percentiles_ms(seconds: list[float]) -> dict[str, float | None]:
    if not seconds:
        return {"p50_ms": None, "p95_ms": None, "p99_ms": None, "max_ms": None}
    p50, p95, p99 = np.percentile(np.asarray(seconds) * 1000.0, [50, 95, 99])
    return {"p50_ms": round(float(p50), 1), "p95_ms": round(float(p95), 1),
            "p99_ms": round(float(p99), 1), "max_ms": round(max(seconds) * 1000.0, 1)}


def append(path: Path, record: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as fh:
        fh.write(json.dumps(record, sort_keys=True) + "\n")


def read(path: Path) -> list[dict[str, Any]]:
    """Every parsable line; a damaged line is reported, never silently dropped."""
    if not path.exists():
        return []
    rows = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{number}: not a JSON line ({exc.msg}): fix or delete "
                             "that line") from exc
    return rows
