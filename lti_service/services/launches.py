"""Record what a validated launch tells us: the user, the LMS course, the placement, the nonce.

Runs after every protocol check passed, inside the request's transaction; the nonce insert is
last, so a replayed launch fails on the unique key and rolls back everything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..models import LmsContext, LmsUser, Placement, Platform, UsedNonce
from .errors import LaunchRejected

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
INSTRUCTOR_ROLES = (
    "membership#Instructor",
    "membership#Administrator",
    "membership#ContentDeveloper",
    "membership/Instructor#TeachingAssistant",
    "institution/person#Administrator",
    "system/person#Administrator",
)
COUNTINGS = ("first", "last", "best")


def is_instructor(roles: list[str]) -> bool:
    return any(role.endswith(suffix) for role in roles for suffix in INSTRUCTOR_ROLES)


@dataclass(frozen=True)
class LaunchRecord:
    user_id: int
    context_pk: int
    placement_id: int | None
    roles: tuple[str, ...]
    is_instructor: bool
    content_id: str | None


def _int_param(custom: dict[str, Any], name: str, default: int) -> int:
    value = custom.get(name)
    if value in (None, ""):
        return default
    try:
        number = int(str(value))
    except ValueError as exc:
        raise LaunchRejected(f"custom parameter {name}={value!r} is not a whole number") from exc
    if number < 1:
        raise LaunchRejected(f"custom parameter {name}={number} must be at least 1")
    return number


def record_launch(
    session: Session,
    platform: Platform,
    body: dict[str, Any],
    *,
    content_exists: Any,
    default_max_attempts: int,
    default_counting: str,
) -> LaunchRecord:
    """Upsert user, context and placement from the claims; mark the nonce used."""
    roles = list(body.get(CLAIM + "roles") or [])
    context_claim = body.get(CLAIM + "context") or {}
    if not context_claim.get("id"):
        raise LaunchRejected("the launch has no context (LMS course) claim: launch from a course")
    user = session.scalar(
        select(LmsUser).where(LmsUser.platform_id == platform.id, LmsUser.sub == body["sub"])
    )
    if user is None:
        user = LmsUser(platform_id=platform.id, sub=body["sub"])
        session.add(user)
    user.name = body.get("name") or user.name or ""
    user.email = body.get("email") or user.email or ""
    context = session.scalar(
        select(LmsContext).where(
            LmsContext.platform_id == platform.id, LmsContext.context_id == context_claim["id"]
        )
    )
    if context is None:
        context = LmsContext(platform_id=platform.id, context_id=context_claim["id"])
        session.add(context)
    context.title = context_claim.get("title") or context.title or ""
    context.deployment_id = body.get(CLAIM + "deployment_id", "")
    nrps = body.get(NRPS_CLAIM) or {}
    if nrps.get("context_memberships_url"):
        context.memberships_url = nrps["context_memberships_url"]
    session.flush()

    placement = None
    content_id = None
    if body.get(CLAIM + "message_type") == "LtiResourceLinkRequest":
        link_id = body[CLAIM + "resource_link"]["id"]
        custom = body.get(CLAIM + "custom") or {}
        ags = body.get(AGS_CLAIM) or {}
        placement = session.scalar(
            select(Placement).where(
                Placement.context_id == context.id, Placement.resource_link_id == link_id
            )
        )
        content_id = custom.get("content_id") or (placement.content_id if placement else None)
        if not content_id:
            raise LaunchRejected(
                "this link has no content_id custom parameter: re-add it with the tool's "
                "deep-linking picker"
            )
        if not content_exists(content_id):
            raise LaunchRejected(
                f"this link points at content id {content_id!r}, which the course does not "
                "have: ask the instructor to re-add it with the picker"
            )
        counting = str(custom.get("counting") or default_counting)
        if counting not in COUNTINGS:
            raise LaunchRejected(f"custom parameter counting={counting!r}: use first, last or best")
        if placement is None:
            placement = Placement(context_id=context.id, resource_link_id=link_id,
                                  content_id=content_id)
            session.add(placement)
            placement.max_attempts = _int_param(custom, "max_attempts", default_max_attempts)
            placement.counting = counting
        placement.content_id = content_id
        placement.title = (body.get(CLAIM + "resource_link") or {}).get("title") or content_id
        if ags.get("lineitem"):
            placement.lineitem_url = ags["lineitem"]
        if ags.get("lineitems"):
            placement.lineitems_url = ags["lineitems"]
        if ags.get("scope"):
            placement.ags_scopes = list(ags["scope"])
        session.flush()

    try:
        with session.begin_nested():
            session.add(UsedNonce(platform_id=platform.id, nonce=str(body["nonce"])))
    except IntegrityError as exc:
        raise LaunchRejected("this launch was already used (nonce replay): launch again "
                             "from the LMS") from exc
    return LaunchRecord(
        user_id=user.id,
        context_pk=context.id,
        placement_id=placement.id if placement else None,
        roles=tuple(roles),
        is_instructor=is_instructor(roles),
        content_id=content_id,
    )
