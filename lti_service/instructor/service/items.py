"""Item statistics of the course's checkpoints, as a psychometrician reads them (classical test
theory), from each learner's FIRST answer (later attempts are practice after feedback):

- facility: the share of learners who answered correctly (p; "difficulty" in CTT's old name);
- discrimination: the point-biserial correlation between answering this item correctly and the
  learner's score on everything else graded in the course (the corrected item-total
  correlation: the item is left out of the total, so it does not correlate with itself);
- distractor choice rates: the share of learners whose first answer was each choice.

Pure functions over the class view's rows; None where a number is undefined (no answers, or
everyone scored alike).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ItemStats:
    learners: int
    facility: float | None
    discrimination: float | None
    rates: list[tuple[str, float]]
    """(choice key, share of first answers), in the question's choice order."""


def point_biserial(correct: list[bool], rest: list[float]) -> float | None:
    """r_pb of a 0/1 item against a score; None when either side does not vary."""
    n = len(correct)
    if n < 2 or n != len(rest):
        return None
    right = [r for c, r in zip(correct, rest, strict=True) if c]
    wrong = [r for c, r in zip(correct, rest, strict=True) if not c]
    if not right or not wrong:
        return None
    mean = sum(rest) / n
    sd = math.sqrt(sum((r - mean) ** 2 for r in rest) / n)
    if sd == 0:
        return None
    p = len(right) / n
    return (sum(right) / len(right) - sum(wrong) / len(wrong)) / sd * math.sqrt(p * (1 - p))


def first_answers(attempts: list[Any]) -> tuple[str, bool] | None:
    if not attempts:
        return None
    first = min(attempts, key=lambda a: a.attempt_number)
    return str(first.choice), bool(first.correct)


def statistics(view: Any) -> dict[int, ItemStats]:
    """Checkpoint placement id -> its item statistics, for a ``classview.ClassView``."""
    checkpoints = [p for p in view.placements if p.id in view.distributions]
    exercises = [p for p in view.placements if p.id not in view.distributions]
    # Each learner's item scores: first answers (0/1) and exercises' best fraction.
    scores: dict[str, dict[int, float]] = {}
    firsts: dict[str, dict[int, tuple[str, bool]]] = {}
    for row in view.rows:
        mine = scores.setdefault(row.sub, {})
        for p in checkpoints:
            found = first_answers(row.attempts.get(p.id, []))
            if found is not None:
                firsts.setdefault(row.sub, {})[p.id] = found
                mine[p.id] = 1.0 if found[1] else 0.0
        for p in exercises:
            graded = [s for s in row.submissions.get(p.id, [])
                      if s.status == "graded" and s.max_score]
            if graded:
                mine[p.id] = max((s.score or 0.0) / s.max_score for s in graded)
    out = {}
    for p in checkpoints:
        answered = [(sub, f[p.id]) for sub, f in firsts.items() if p.id in f]
        correct = [ok for _, (_, ok) in answered]
        rest = [sum(v for pid, v in scores[sub].items() if pid != p.id) for sub, _ in answered]
        counts = Counter(choice for _, (choice, _) in answered)
        keys = [key for key, *_ in view.distributions[p.id]]
        keys += sorted(k for k in counts if k not in keys)
        n = len(answered)
        out[p.id] = ItemStats(n, sum(correct) / n if n else None,
                              point_biserial(correct, rest),
                              [(k, counts.get(k, 0) / n if n else 0.0) for k in keys])
    return out
