"""A graded result as its learner may read it: the one serializer for every learner-facing
copy (the page's attempt list, ``status.json``, ``history.json``, the portfolio ZIP's
``receipt.json``).

Hidden checks are hidden everywhere, not only on the page: their title (which may name a hidden
input, or one day an expected value) becomes "Hidden check" and their feedback the fixed text
below; the seed the hidden inputs were drawn from and the worker's host are left out. Fields
are copied by name (an allow-list), so a field the grader adds later stays out until it is
added here.
"""

from __future__ import annotations

from typing import Any

HIDDEN_NAME = "Hidden check"
HIDDEN_FEEDBACK = {
    "passed": "",
    "failed": "A hidden check failed: reread the exercise prompt and test the unchanged "
              "values too.",
}
HIDDEN_COULD_NOT_RUN = "A hidden check could not run."
RESULT_FIELDS = ("submission_id", "attempt", "exercise_id", "outcome", "score", "max_score",
                 "feedback", "stdout", "stderr", "truncated", "timings", "schema",
                 "course_version", "checks_hash", "variant")
ENVIRONMENT_FIELDS = ("python", "jax", "backend", "device_count")


def learner_check(check: Any) -> dict[str, Any]:
    """One check as the learner sees it; a hidden one shows its status and points only."""
    if not isinstance(check, dict):
        return {"name": HIDDEN_NAME, "status": "error", "points": 0, "max_points": 0,
                "feedback": HIDDEN_COULD_NOT_RUN, "visibility": "hidden"}
    status = check.get("status")
    shown = {"status": status, "points": check.get("points", 0),
             "max_points": check.get("max_points", 0)}
    if check.get("visibility") == "visible":
        return {"name": check.get("name", ""), **shown, "feedback": check.get("feedback", ""),
                "visibility": "visible"}
    return {"name": HIDDEN_NAME, **shown,
            "feedback": HIDDEN_FEEDBACK.get(str(status), HIDDEN_COULD_NOT_RUN),
            "visibility": "hidden"}


def learner_result(result: Any) -> dict[str, Any]:
    """A stored grading result (``GradingResult.to_dict()``) as its learner may read it."""
    if not isinstance(result, dict):
        return {}
    out = {key: result[key] for key in RESULT_FIELDS if key in result}
    checks = result.get("checks")
    out["checks"] = [learner_check(c) for c in checks] if isinstance(checks, list) else []
    environment = result.get("environment")
    if isinstance(environment, dict):
        out["environment"] = {k: environment[k] for k in ENVIRONMENT_FIELDS if k in environment}
    return out
