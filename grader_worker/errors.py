"""The grader's exception tree: one base, so callers can catch grader problems in one place."""

from __future__ import annotations

from grading_contract import errors as contract


class GraderError(Exception):
    """Base of every error the grader raises on purpose."""


class JobError(GraderError, contract.JobError):
    """A grading job is malformed (what was wrong is in the message); catch
    ``grading_contract.errors.JobError`` to include the contract's own parse errors."""


class SandboxUnavailable(GraderError):
    """This host cannot build the sandbox (bwrap missing, no cgroup access): an infrastructure
    failure, retried elsewhere, never charged to the learner."""
