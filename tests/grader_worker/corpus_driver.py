"""Grade the hostile corpus in this interpreter and print one JSON report on stdout.

Run by test_deployed_sandbox.py as a deployment runs the worker: from a wheel install (the
course, hidden checks included, in site-packages), as root or as an unprivileged user. Not a
test module: it runs outside pytest, under whichever interpreter and uid the test chose.

    python corpus_driver.py SECRET_DIR [NAME.py...]   (NAME.py: only these of the corpus)

With PATHWAYS_GRADER_WARM=1 the corpus goes through the warm runner (one zygote a thread), as a
worker configured that way grades.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from grader_helpers import CORPUS, CORPUS_LIMITS, FIXTURE_CHECKS, GOOD, grade_corpus, make_job

import grader_worker
from course.checks import HARNESS_PATH
from grader_worker.config import load_config
from grader_worker.grading import grade
from grader_worker.runner import SandboxRunner
from grader_worker.warm import WarmRunner


def _peak_rss_kb() -> int:
    """This process's own peak resident set (VmHWM: its address space's, new at exec).
    Not ``ru_maxrss``: Linux carries that over fork and exec, so a driver started by a large
    pytest would report pytest's size (700 MB in a full run), not the trusted process's."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise RuntimeError("no VmHWM in /proc/self/status")


def main() -> int:
    secret_dir = Path(sys.argv[1])
    config = load_config()
    runner = (WarmRunner(config, HARNESS_PATH, ceiling=CORPUS_LIMITS) if config.warm
              else SandboxRunner(config, HARNESS_PATH))
    replaced = 0
    try:
        only = set(sys.argv[2:])  # some of the corpus's file names (a retry); default: all
        corpus = grade_corpus(runner, secret_dir, workers=2,
                              paths=[p for p in CORPUS if not only or p.name in only])
        good = grade(make_job(GOOD.read_text(), submission_id="good"), runner=runner,
                     checks_for=lambda _: FIXTURE_CHECKS, ceiling=CORPUS_LIMITS)
        # A warm zygote's own home lives in the base until the runner closes (checked below by
        # base_removed); anything else there was left by a run.
        left = sorted(p.name for p in runner.base.iterdir() if not p.name.startswith("warm-"))
        replaced = getattr(runner, "replaced", 0)
    finally:
        runner.close()
    print(json.dumps({
        "results": {name: {**result.to_dict(), "trusted_cpu_s": cpu}
                    for name, (result, cpu) in corpus.items()},
        "good": good.to_dict(),
        "left_in_base": left,
        "base_removed": not runner.base.exists(),
        "maxrss_mb": _peak_rss_kb() / 1024,
        "uid": os.getuid(),
        "run_uid": runner.run_uid,
        "warm": config.warm,
        "zygotes_replaced": replaced,
        "grader_worker": grader_worker.__file__,
        "harness": str(HARNESS_PATH),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
