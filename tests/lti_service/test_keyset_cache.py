"""The platform's key set is cached in the shared ``lti_storage`` table (``lti.service.keysets``):
launches read it instead of fetching it, a rotated platform key refreshes it, and forged kids
cannot make the tool fetch again and again. The fetch itself is devlms's real JWKS over HTTP."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from test_launch_rejections import claims, login, post, sign

from devlms.browser import Browser
from devlms.config import new_private_key_pem
from lti_service.lti.models import LtiStorage
from lti_service.lti.service import keysets


def signed_launch(stack, **sign_args: Any):  # type: ignore[no-untyped-def]
    browser = Browser()
    nonce, state = login(stack, browser)
    return post(stack, browser, sign(stack, claims(stack, nonce), **sign_args), state)


def cached(stack) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    with stack.db() as session:
        rows = list(session.scalars(select(LtiStorage).where(
            LtiStorage.key.startswith(keysets.KEY_PREFIX))))
        assert len(rows) == 1, [r.key for r in rows]
        return dict(rows[0].value)


def kids(entry: dict[str, Any]) -> set[str]:
    return {k["kid"] for k in entry["keys"]["keys"]}


def age(stack, seconds: float) -> None:  # type: ignore[no-untyped-def]
    """Make the cached set look fetched ``seconds`` ago (past the refresh limit)."""
    with stack.db() as session:
        row = session.scalars(select(LtiStorage).where(
            LtiStorage.key.startswith(keysets.KEY_PREFIX))).one()
        row.value = {**row.value, "fetched_at": row.value["fetched_at"] - seconds}
        session.commit()


def test_launches_share_one_fetch_of_the_key_set(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    assert signed_launch(sqlite_stack).status_code == 302
    first = cached(sqlite_stack)
    for _ in range(3):
        assert signed_launch(sqlite_stack).status_code == 302
    assert cached(sqlite_stack)["fetched_at"] == first["fetched_at"]  # not fetched again


def test_a_rotated_platform_key_refreshes_the_cache(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    assert signed_launch(stack).status_code == 302
    old_kids = kids(cached(stack))
    age(stack, keysets.MIN_REFRESH_S + 1)
    stack.lms_config.private_key_pem = new_private_key_pem()  # the LMS rotates its key
    r = signed_launch(stack)
    assert r.status_code == 302, r.text[:400]
    assert kids(cached(stack)).isdisjoint(old_kids)


def test_unknown_kids_do_not_refetch_within_the_limit(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    assert signed_launch(stack).status_code == 302
    before = cached(stack)
    for n in range(3):
        r = signed_launch(stack, key=new_private_key_pem(), kid=f"forged-{n}")
        assert r.status_code == 400 and "Unable to find public key" in r.text
    assert cached(stack) == before  # refreshed moments ago: no fetch per forged kid
    age(stack, keysets.MIN_REFRESH_S + 1)
    r = signed_launch(stack, key=new_private_key_pem(), kid="forged-late")
    assert r.status_code == 400
    assert cached(stack)["fetched_at"] > before["fetched_at"]  # one refresh, then refused
