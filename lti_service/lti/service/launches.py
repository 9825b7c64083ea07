"""Record what a validated launch tells us: the user, the LMS course, the placement, the nonce.

Runs after every protocol check passed, inside the request's transaction; the nonce insert is
last, so a replayed launch fails on the unique key and the caller rolls back everything (no
savepoint: nothing of a refused launch is kept). A repeat launch of a known user, course and
link writes only the nonce; rows change only when a claim did.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from lti_service.core.errors import LaunchRejected, excerpt
from lti_service.core.models import LmsContext, LmsUser, Placement, Platform, utcnow
from lti_service.core.placement_policy import (  # noqa: F401 (launches.X names kept)
    COUNTINGS,
    MAX_ATTEMPTS_LIMIT,
    parse_code_attempts,
    parse_max_attempts,
)
from lti_service.lti.models import UsedNonce
from lti_service.lti.service.outbound import origin
from lti_service.lti.service.platforms import service_origins

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


def _max_attempts(custom: dict[str, Any], default: int) -> int:
    value = custom.get("max_attempts")
    if value in (None, ""):
        return default
    try:
        return parse_max_attempts(value)
    except ValueError as exc:
        raise LaunchRejected(f"custom parameter {exc}: re-add the link with the picker") from exc


def check_service_urls(platform: Platform, body: dict[str, Any]) -> None:
    """Refuse a launch whose AGS or NRPS URLs are not on the platform's origins.

    Why: the tool posts scores to, and reads rosters from, these URLs with the platform's token;
    a platform (or anyone holding its key) naming an internal address would make the tool call
    it. The URL itself is not quoted back."""
    allowed = service_origins(platform)
    ags = body.get(AGS_CLAIM) or {}
    nrps = body.get(NRPS_CLAIM) or {}
    for name, url in (("AGS line item", ags.get("lineitem")),
                      ("AGS line items", ags.get("lineitems")),
                      ("NRPS roster", nrps.get("context_memberships_url"))):
        if url and origin(url) not in allowed:
            raise LaunchRejected(
                f"the launch names its {name} URL on an origin this platform is not registered "
                "for: the operator allows it with `pathways platform update --service-origin`")


def _cut(text: object, limit: int) -> str:
    """Display text (names, titles) to its column's length; identifiers are refused instead."""
    return text[:limit] if isinstance(text, str) else ""


# The launch's statements, built once (bind parameters): building and cache-keying a statement
# per request cost about what running it did (issue 23).
_USER = select(LmsUser).where(LmsUser.platform_id == bindparam("platform_id"),
                              LmsUser.sub == bindparam("sub"))
_NONCE = UsedNonce.__table__.insert()


@functools.cache
def _context_query(is_link: bool) -> Any:
    """The course and, for a link, its placement in one query (a lecture hall's launches all
    find both)."""
    query = select(LmsContext).where(LmsContext.platform_id == bindparam("platform_id"),
                                     LmsContext.context_id == bindparam("context_id"))
    if is_link:
        query = query.add_columns(Placement).outerjoin(
            Placement, (Placement.context_id == LmsContext.id)
            & (Placement.resource_link_id == bindparam("link_id")))
    return query


def _user(session: Session, platform: Platform, body: dict[str, Any]) -> LmsUser:
    user = session.scalar(_USER, {"platform_id": platform.id, "sub": body["sub"]})
    if user is None:
        user = LmsUser(platform_id=platform.id, sub=body["sub"])
        session.add(user)
    user.name = _cut(body.get("name"), 255) or user.name or ""
    email = body.get("email")
    if isinstance(email, str) and 0 < len(email) <= 255:  # a longer one is no address
        user.email = email
    return user


def _context(session: Session, platform: Platform, body: dict[str, Any],
             context: LmsContext | None) -> LmsContext:
    context_claim = body[CLAIM + "context"]
    if context is None:
        context = LmsContext(platform_id=platform.id, context_id=context_claim["id"])
        session.add(context)
    context.title = _cut(context_claim.get("title"), 500) or context.title or ""
    context.deployment_id = body.get(CLAIM + "deployment_id", "")
    nrps = body.get(NRPS_CLAIM) or {}
    if nrps.get("context_memberships_url"):
        context.memberships_url = nrps["context_memberships_url"]
    session.flush()
    return context


def _placement(session: Session, body: dict[str, Any], context: LmsContext,
               placement: Placement | None, link_id: str, *, content_exists: Any,
               default_max_attempts: int, default_counting: str) -> Placement:
    """The link's placement, made on its first launch with the custom parameters' policy."""
    custom = body.get(CLAIM + "custom") or {}
    ags = body.get(AGS_CLAIM) or {}
    content_id = custom.get("content_id") or (placement.content_id if placement else None)
    if not content_id:
        raise LaunchRejected(
            "this link has no content_id custom parameter: re-add it with the tool's "
            "deep-linking picker"
        )
    if not content_exists(content_id):
        raise LaunchRejected(
            f"this link points at content id {excerpt(content_id)}, which the course does not "
            "have: ask the instructor to re-add it with the picker"
        )
    counting = str(custom.get("counting") or default_counting)
    if counting not in COUNTINGS:
        raise LaunchRejected(f"custom parameter counting={excerpt(counting)}: use first, last "
                             "or best")
    if placement is None:
        placement = Placement(context_id=context.id, resource_link_id=link_id,
                              content_id=content_id)
        session.add(placement)
        placement.max_attempts = _max_attempts(custom, default_max_attempts)
        try:
            placement.code_attempts = parse_code_attempts(custom.get("code_attempts"))
        except ValueError as exc:
            raise LaunchRejected(f"custom parameter {exc}: re-add the link with the "
                                 "picker") from exc
        placement.counting = counting
    placement.content_id = content_id
    placement.title = _cut(body[CLAIM + "resource_link"].get("title"), 500) or content_id
    if ags.get("lineitem"):
        placement.lineitem_url = ags["lineitem"]
    if ags.get("lineitems"):
        placement.lineitems_url = ags["lineitems"]
    if ags.get("scope"):
        placement.ags_scopes = list(ags["scope"])
    session.flush()
    return placement


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
    check_service_urls(platform, body)
    roles = list(body.get(CLAIM + "roles") or [])
    context_claim = body.get(CLAIM + "context") or {}
    if not context_claim.get("id"):
        raise LaunchRejected("the launch has no context (LMS course) claim: launch from a course")
    user = _user(session, platform, body)
    is_link = body.get(CLAIM + "message_type") == "LtiResourceLinkRequest"
    link_id = body[CLAIM + "resource_link"]["id"] if is_link else None
    # The course and, for a link, its placement in one query (a lecture hall's launches all
    # find both).
    params = {"platform_id": platform.id, "context_id": context_claim["id"]}
    if is_link:
        params["link_id"] = link_id
    found = session.execute(_context_query(is_link), params).first()
    context = _context(session, platform, body, found[0] if found else None)
    placement: Placement | None = found[1] if found and is_link else None
    content_id = None
    if is_link:
        placement = _placement(session, body, context, placement, link_id,
                               content_exists=content_exists,
                               default_max_attempts=default_max_attempts,
                               default_counting=default_counting)
        content_id = placement.content_id

    try:  # a Core INSERT: nothing reads the row back in this request
        session.execute(_NONCE, {"platform_id": platform.id, "nonce": str(body["nonce"]),
                                 "used_at": utcnow()})
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
