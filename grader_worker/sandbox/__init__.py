"""The sandbox: bubblewrap + rlimits + a cgroup per run + bounded pipes + a wall-clock kill."""

from grader_worker.sandbox.process import RunOutcome, run

__all__ = ["RunOutcome", "run"]
