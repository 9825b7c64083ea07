"""Checkpoint item statistics (classical test theory) from first answers: facility, the
corrected item-total point-biserial, distractor choice rates."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from lti_service.instructor.service.items import point_biserial, statistics


@dataclass
class A:
    attempt_number: int
    choice: str
    correct: bool


@dataclass
class S:
    status: str
    score: float
    max_score: float


@dataclass
class P:
    id: int


@dataclass
class Row:
    sub: str
    attempts: dict[int, list[Any]] = field(default_factory=dict)
    submissions: dict[int, list[Any]] = field(default_factory=dict)


@dataclass
class View:
    placements: list[P]
    rows: list[Row]
    distributions: dict[int, list[tuple[str, str, bool, int]]]


def test_point_biserial_matches_the_textbook_formula() -> None:
    correct = [True, True, False, False]
    rest = [3.0, 2.0, 1.0, 0.0]
    # M1 = 2.5, M0 = 0.5, sd (population) = sqrt(1.25), p = q = 0.5
    assert math.isclose(point_biserial(correct, rest), 2 / math.sqrt(1.25) * 0.5)
    assert point_biserial([True, True], [1.0, 2.0]) is None, "no variance in the item"
    assert point_biserial([True, False], [1.0, 1.0]) is None, "no variance in the rest"


def test_statistics_use_first_answers_and_leave_the_item_out_of_the_total() -> None:
    q1, q2, ex = P(1), P(2), P(3)
    dist = [("a", "right", True, 0), ("b", "wrong", False, 0), ("c", "other", False, 0)]
    rows = [
        Row("s1", {1: [A(1, "a", True)], 2: [A(1, "a", True)]},
            {3: [S("graded", 3.0, 3.0)]}),
        Row("s2", {1: [A(1, "b", False), A(2, "a", True)], 2: [A(1, "a", True)]},
            {3: [S("graded", 1.5, 3.0)]}),
        Row("s3", {1: [A(1, "b", False)], 2: [A(1, "c", False)]}, {3: [S("graded", 0, 3.0)]}),
        Row("s4"),  # never answered: not counted
    ]
    stats = statistics(View([q1, q2, ex], rows, {1: dist, 2: dist}))
    first = stats[1]
    assert first.learners == 3 and math.isclose(first.facility, 1 / 3), "first answers only"
    assert first.rates == [("a", 1 / 3), ("b", 2 / 3), ("c", 0.0)]
    # Rest scores for item 1 (item 2 + exercise fraction): s1 2.0, s2 1.5, s3 0.0.
    assert math.isclose(first.discrimination, point_biserial([True, False, False],
                                                             [2.0, 1.5, 0.0]))
    assert first.discrimination > 0.5, "the strong learner answered right"
    assert stats[2].rates[2] == ("c", 1 / 3)
