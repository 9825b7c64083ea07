"""The placement's attempt policy, read from one module by every caller (issue 26)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from lti_service.checkpoints import schemas
from lti_service.checkpoints.service import counted as checkpoint_counted
from lti_service.core import placement_policy as policy
from lti_service.lti.service import launches


def attempts(*scores: float) -> list[SimpleNamespace]:
    return [SimpleNamespace(n=i + 1, score=s, correct=s == 1.0) for i, s in enumerate(scores)]


@pytest.mark.parametrize(("counting", "scores", "chosen"), [
    ("first", (0.5, 1.0, 0.2), 1), ("last", (0.5, 1.0, 0.2), 3), ("best", (0.5, 1.0, 1.0), 2),
    ("best", (0.0, 0.0), 1),
])
def test_the_counted_attempt(counting: str, scores: tuple[float, ...], chosen: int) -> None:
    picked = policy.counted(attempts(*scores), counting, lambda a: a.score)
    assert picked is not None and picked.n == chosen
    assert policy.counted([], counting, lambda a: 0.0) is None


def test_checkpoints_count_by_the_same_rule() -> None:
    assert checkpoint_counted(attempts(0.0, 1.0), "first") == 0.0
    assert checkpoint_counted(attempts(0.0, 1.0), "best") == 1.0
    assert checkpoint_counted(attempts(1.0, 0.0), "last") == 0.0


def test_every_reader_uses_the_policy_module() -> None:
    assert launches.COUNTINGS is policy.COUNTINGS
    assert launches.parse_max_attempts is policy.parse_max_attempts
    fields = schemas.PolicyIn().fields
    assert tuple(fields["counting"].validate.choices) == policy.COUNTINGS  # type: ignore[union-attr]
    for bad in ("0", "101", "2.7", "1e30", 3):
        with pytest.raises(ValueError, match="from 1 to 100"):
            policy.parse_max_attempts(bad)
    with pytest.raises(ValueError, match="first, last or best"):
        policy.parse_counting("x" * 500)


def test_the_picker_offers_the_policy_s_countings_and_limit(client, platform) -> None:  # type: ignore[no-untyped-def]
    from unit_launch import INSTRUCTOR, launch

    token, _ = launch(client, platform, sub="teacher", role=INSTRUCTOR, context_id="c-1",
                      content_id="arrays-04")
    page = client.get("/instructor/picker", query_string={"lt": token})
    assert page.status_code == 200, page.get_data(as_text=True)[:300]
    html = page.get_data(as_text=True)
    for counting in policy.COUNTINGS:
        assert f'<option value="{counting}"' in html
    assert f'max="{policy.MAX_ATTEMPTS_LIMIT}"' in html
