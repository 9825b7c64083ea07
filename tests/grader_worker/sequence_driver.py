"""Run programs one after another through one runner (cold or warm) and print a JSON report.

Run by test_sealed_runs.py as the worker runs: as root or as an unprivileged worker user, cold
or warm (PATHWAYS_GRADER_WARM). Not a test module: it runs outside pytest, under the uid the
test chose, so the runs it makes are what that worker's would be.

    python sequence_driver.py [--grade] PROGRAM.py [PROGRAM.py ...]

``--grade``: each program is graded (``grade`` with the test exercise's checks) and its outcome
and score reported too. Once the runner is closed, the cgroup reaper is given a minute to
remove what did not empty in time; what it still holds is reported.

Each program is a different learner's. The report holds, per run, what the program printed,
how it ended, and the warm cgroup's memory use once it ended (warm runs only).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from grader_helpers import FIXTURE_CHECKS, make_job

from course.checks import HARNESS_PATH
from grader_worker.config import load_config
from grader_worker.grading import grade
from grader_worker.limits import Limits
from grader_worker.runner import SandboxRunner
from grader_worker.sandbox import cgroups
from grader_worker.warm import WarmRunner

LIMITS = Limits(wall_s=60, cpu_s=30, memory_mb=1024, data_mb=768, pids=128, disk_mb=64)


def _memory_bytes(runner: SandboxRunner) -> int | None:
    """The warm cgroup's charged memory now (None: cold)."""
    zygotes = getattr(runner, "_all", [])
    if not zygotes:
        return None
    group = zygotes[0].group
    for d in group.dirs:
        for name in ("memory.usage_in_bytes", "memory.current"):
            if (d / name).exists():
                return int((d / name).read_text())
    return None


def main() -> int:
    config = load_config()
    runner = (WarmRunner(config, HARNESS_PATH, ceiling=LIMITS) if config.warm
              else SandboxRunner(config, HARNESS_PATH))
    runs = []
    grading = sys.argv[1] == "--grade"
    try:
        for path in sys.argv[1 + grading:]:
            source = Path(path).read_text()
            if grading:
                result = grade(make_job(source, submission_id=Path(path).stem), runner=runner,
                               checks_for=lambda _: FIXTURE_CHECKS, ceiling=LIMITS)
                runs.append({"program": Path(path).name, "outcome": result.outcome,
                             "score": result.score, "feedback": result.feedback,
                             "stdout": result.stdout, "stderr": result.stderr[-3000:]})
                continue
            out = runner.run(source, (), LIMITS)
            runs.append({"program": Path(path).name, "returncode": out.returncode,
                         "stdout": out.stdout.decode(errors="replace"),
                         "stderr": out.stderr.decode(errors="replace")[-3000:],
                         "timed_out": out.timed_out, "cpu_s": out.cpu_s,
                         "warm_memory": _memory_bytes(runner)})
    finally:
        runner.close()
    deadline = time.monotonic() + 60
    while cgroups.REAPER.pending() and time.monotonic() < deadline:
        time.sleep(0.5)
    print(json.dumps({"uid": os.getuid(), "warm": config.warm, "runs": runs,
                      "reaper_pending": len(cgroups.REAPER.pending()),
                      "reaper_removed": cgroups.REAPER.removed,
                      "tag": runner.tag}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
