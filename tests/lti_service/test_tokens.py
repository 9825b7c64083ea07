"""Launch tokens are opaque, authenticated, bound to one launch and short-lived; CSRF tokens
are per launch and per secret. Pure functions: no app, no clock but the one passed in."""

from __future__ import annotations

import base64
import dataclasses

import pytest

from lti_service.core.tokens import Launch, TokenError, csrf_matches, csrf_token, seal, unseal

SECRET = "test-secret-for-tokens"
LAUNCH = Launch(user_id=4242, placement_id=77, context_pk=9, is_instructor=False,
                launch_id="lti1p3-launch-6f1c0e2a")
T0 = 1_800_000_000.0
HOUR = 3600


def test_a_sealed_launch_opens_to_the_same_launch() -> None:
    token = seal(LAUNCH, SECRET, now=T0)
    assert unseal(token, SECRET, max_age_s=2 * HOUR, now=T0 + 60) == LAUNCH
    deep_link = dataclasses.replace(LAUNCH, placement_id=None, is_instructor=True)
    assert unseal(seal(deep_link, SECRET, now=T0), SECRET, max_age_s=HOUR, now=T0) == deep_link


def test_the_token_is_url_safe_and_shows_nothing_readable() -> None:
    token = seal(LAUNCH, SECRET, now=T0)
    assert token.replace("-", "").replace("_", "").isalnum(), "no padding, no escaping needed"
    raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    for plain in (b"lti1p3-launch", b"6f1c0e2a", b"4242", b"placement"):
        assert plain not in raw, plain
    assert seal(LAUNCH, SECRET, now=T0) != token, "each sealing is fresh (random IV)"


def test_an_expired_token_is_refused_as_expired() -> None:
    token = seal(LAUNCH, SECRET, now=T0)
    assert unseal(token, SECRET, max_age_s=2 * HOUR, now=T0 + 2 * HOUR) == LAUNCH
    with pytest.raises(TokenError) as err:
        unseal(token, SECRET, max_age_s=2 * HOUR, now=T0 + 2 * HOUR + 1)
    assert err.value.expired


@pytest.mark.parametrize("damage", ["flip", "truncate", "other secret", "future", "garbage"])
def test_a_forged_or_damaged_token_is_refused(damage: str) -> None:
    token = seal(LAUNCH, SECRET, now=T0)
    secret, now = SECRET, T0
    if damage == "flip":
        middle = len(token) // 2
        token = token[:middle] + ("A" if token[middle] != "A" else "B") + token[middle + 1:]
    elif damage == "truncate":
        token = token[:-5]
    elif damage == "other secret":
        secret = "another-secret"
    elif damage == "future":
        now = T0 - HOUR
    else:
        token = "not-a-token"
    with pytest.raises(TokenError) as err:
        unseal(token, secret, max_age_s=2 * HOUR, now=now)
    assert not err.value.expired


def test_csrf_tokens_belong_to_one_launch_and_one_secret() -> None:
    mine = csrf_token(LAUNCH, SECRET)
    assert csrf_matches(LAUNCH, SECRET, mine)
    other = dataclasses.replace(LAUNCH, launch_id="lti1p3-launch-other")
    assert not csrf_matches(other, SECRET, mine)
    assert not csrf_matches(LAUNCH, "another-secret", mine)
    assert not csrf_matches(LAUNCH, SECRET, "")
    assert not csrf_matches(LAUNCH, SECRET, None)
