"""What a learner is told about an attempt or a run: one catalogue of outcomes.

The worker's outcome (``grading_contract.result.OUTCOMES``) and the row's status map to a few
outcomes a person understands (graded, timed out, your program crashed, could not be graded: try
again later, refused: why), each with a badge, a tone (its colour: never green unless the
program ran and was graded) and a headline. The technical detail (an exception of ours, a
worker's message) stays on the instructor's desk and in the logs: ``learner_feedback`` shows
the worker's feedback only where it is about the learner's own program, and never cuts a word.
"""

from __future__ import annotations

from dataclasses import dataclass

FEEDBACK_CHARS = 1200
"""The longest feedback a learner's page shows (cut at a word, with an ellipsis)."""


@dataclass(frozen=True)
class Outcome:
    key: str
    badge: str
    """The few words on the attempt's badge."""
    tone: str
    """ok | warn | bad | wait: the badge's colour; ``ok`` only for a graded run."""
    headline: str
    """One sentence that says what happened and what to do."""
    charged: bool = True
    """Whether it counts as an attempt."""
    own_feedback: bool = True
    """Whether the worker's feedback (about the learner's program) is shown under it."""


CATALOGUE: dict[str, Outcome] = {o.key: o for o in (
    Outcome("queued", "queued", "wait", "Waiting for a grader: this page updates by itself."),
    Outcome("running", "running", "wait", "Being graded: this page updates by itself."),
    Outcome("graded", "graded", "ok", "Graded: each check and its points are below."),
    Outcome("timeout", "timed out", "bad",
            "Time ran out: your program was stopped before it finished. Look for an endless "
            "loop or a computation far larger than the exercise needs."),
    Outcome("crashed", "your program crashed", "bad",
            "Your program stopped with an error before the checks could run; the error is "
            "below."),
    Outcome("syntax_error", "syntax error", "bad",
            "main.py could not be read as Python; the line is named below."),
    Outcome("limit", "stopped at a limit", "bad",
            "Your program went past a limit of the sandbox (memory or output) and was stopped."),
    Outcome("refused", "refused", "bad",
            "Refused: your program tried something the grader does not allow; why is below."),
    Outcome("not_gradable", "could not be graded", "warn",
            "Could not be graded: try again later. This was a problem on our side, not in your "
            "code, and it does not count as an attempt.", charged=False, own_feedback=False),
)}

_BY_OUTCOME = {"graded": "graded", "timeout": "timeout", "exception": "crashed",
               "syntax_error": "syntax_error", "memory_limit": "limit", "output_limit": "limit",
               "sandbox_violation": "refused", "infrastructure_error": "not_gradable",
               "host_timeout": "not_gradable", "not_gradable": "not_gradable"}


def outcome_of(status: str, outcome: str | None) -> Outcome:
    """The catalogue entry of an attempt's (or a run's) status and worker outcome."""
    if status in ("queued", "running"):
        return CATALOGUE[status]
    if status in ("not_gradable", "failed"):
        return CATALOGUE["not_gradable"]
    return CATALOGUE[_BY_OUTCOME.get(outcome or "graded", "not_gradable")]


def learner_feedback(status: str, outcome: str | None, feedback: str | None) -> str:
    """The feedback a learner reads: the worker's words about their program (bounded, cut at a
    word), never our own failure's detail (that is for the desk and the logs)."""
    entry = outcome_of(status, outcome)
    if not entry.own_feedback or entry.tone == "wait":
        return entry.headline
    return cut_words(feedback or "", FEEDBACK_CHARS) or entry.headline


def cut_words(text: str, limit: int) -> str:
    """``text`` at most ``limit`` characters, cut at the last whole word with an ellipsis."""
    text = text.strip()
    if len(text) <= limit:
        return text
    head = text[:limit - 1]
    space = head.rfind(" ")
    return (head[:space] if space > limit // 2 else head).rstrip(" ,;:(") + "…"
