"""Benchmark a lecture hall opening the lesson together: launches only, beside their floor.

N learners (default 200 and 500) launch spread over ``--ramp`` (5 s), each through the real
flow (OIDC login, signed id_token checked against the platform's key set, lesson page), on a
fresh database and a fresh gunicorn (``deploy/gunicorn.conf.py``, 2 sync workers); then the
floor (``bench/_floor.py``) takes three requests a learner in the same pattern. One JSON line
per (db, N) in bench/results/launch_load.jsonl. The flow and the options are
``bench/checkpoint_load.py``'s (this is its ``--launch-only``).

    .venv/bin/python -P bench/launch_load.py [--db sqlite|postgres|both] [--sizes 200,500]
"""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH] + [str(BENCH)]

import _results  # noqa: E402
import checkpoint_load  # noqa: E402

JSONL = _results.RESULTS / "launch_load.jsonl"


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    defaults = [] if any(a.startswith("--sizes") for a in args) else ["--sizes", "200,500"]
    if not any(a.startswith("--results") for a in args):
        defaults += ["--results", str(JSONL)]
    return checkpoint_load.main(["--launch-only", *defaults, *args])


if __name__ == "__main__":
    sys.exit(main())
