"""Errors of the grading contract (the grader and the service subclass or catch these)."""

from __future__ import annotations


class ContractError(Exception):
    """Base of every error this package raises on purpose."""


class JobError(ContractError):
    """A grading job is malformed (what was wrong is in the message)."""


class SignatureError(ContractError):
    """A queue message is unsigned, or its signature does not match its body."""


class KeyConfigError(ContractError):
    """The grading key is missing or too short; the message says how to set it."""
