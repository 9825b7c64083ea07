"""The exercise-check API (docs/CONTRACTS.md section 3).

Authors: ``from course.checks import Values, check`` in ``exercises/<slug>/checks.py``.
Grader: run ``HARNESS_PATH`` (standalone) in the sandbox with ``--names`` from
``load_suite(path).names``; in the trusted parent, ``run_checks(path, read_values(payload))``.
"""

from pathlib import Path

from course.checks.api import CheckFailed, CheckOutcome, CheckSpec, Values, check
from course.checks.behaviour import (
    computes_in,
    differentiates_loop,
    functional_update,
    loops,
    on_host,
    one_pass,
    selects,
    traced,
    vectorised,
)
from course.checks.builtin import hardcoded_source, reference_problem
from course.checks.functions import (
    Call,
    Cast,
    FunctionExercise,
    Rule,
    calls_function,
    encode_calls,
    no_item_assignment,
    uses_at_update,
)
from course.checks.observed import (
    blocks,
    compile_signature,
    compiles_per_signature,
    counts_observed,
    distinct_outputs,
    measured_durations,
    placed,
)
from course.checks.partition import collectives, per_device, sharded_as
from course.checks.runner import ChecksError, CheckSuite, load_suite, run_checks
from course.checks.values import (
    BudgetExceeded,
    CallResult,
    CapturedCalls,
    CapturedValue,
    CapturedValues,
    ProgramError,
    ValuesError,
    read_values,
)

HARNESS_PATH = Path(__file__).with_name("harness.py")
HARNESS_SIBLINGS = ("harness_calls.py", "harness_facts.py", "harness_jax.py")
"""Loaded by path from beside harness.py, by harness.py (``sibling``), before the program
runs: ``python -I`` puts no script directory on sys.path."""
HARNESS_FILES = (HARNESS_PATH, *(HARNESS_PATH.with_name(name) for name in HARNESS_SIBLINGS))
"""What the sandbox binds into /grader/."""

__all__ = [
    "HARNESS_FILES",
    "HARNESS_SIBLINGS",
    "collectives",
    "per_device",
    "sharded_as",
    "HARNESS_PATH",
    "BudgetExceeded",
    "Call",
    "CallResult",
    "CapturedCalls",
    "Cast",
    "FunctionExercise",
    "Rule",
    "calls_function",
    "blocks",
    "compile_signature",
    "compiles_per_signature",
    "computes_in",
    "counts_observed",
    "distinct_outputs",
    "on_host",
    "one_pass",
    "placed",
    "selects",
    "differentiates_loop",
    "functional_update",
    "loops",
    "measured_durations",
    "traced",
    "vectorised",
    "hardcoded_source",
    "reference_problem",
    "encode_calls",
    "no_item_assignment",
    "uses_at_update",
    "CapturedValue",
    "CapturedValues",
    "CheckFailed",
    "CheckOutcome",
    "CheckSpec",
    "CheckSuite",
    "ChecksError",
    "ProgramError",
    "Values",
    "ValuesError",
    "check",
    "load_suite",
    "read_values",
    "run_checks",
]
