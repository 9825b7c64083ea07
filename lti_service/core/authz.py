"""Who may do what: one guard per blueprint resolves launch -> placement -> content item -> role.

Each blueprint makes one ``Guard`` and decorates every view with the rule it needs
(``@guard(LEARNER, kinds=CHECKPOINT_KINDS)``). The guard reads the launch token from the
sources its blueprint allows, checks Origin and the CSRF token on state-changing requests,
loads the user, the LMS course, the placement the URL names (or the placement of the owned
object it names, e.g. a submission) and its content item, enforces the rules below and calls
the view with the resolved ``Access``. Views never look at the token or re-check anything.

The rules, in one place:
- Everyone: the placement belongs to the launch's LMS course (else 404), and its content is of a
  kind the endpoint serves (checkpoint answers to lesson/checkpoint placements, submissions to
  exercise placements; else 404).
- A learner acts only on the placement they launched (else 403), and an owned object (a
  submission) must be theirs (else 404: we do not say whose it is); a personal one (an
  imported portfolio) is its owner's only, whoever asks.
- A part the URL names (an exercise of a lesson placement) must belong to the placement's
  content (else 404): a lesson's page submits only that lesson's exercises.
- An instructor may open any placement and any learner's object of their own LMS course only.
- ``INSTRUCTOR`` views refuse everyone else with 403.
With ``fail_closed`` (the default) the blueprint answers 403 for a view that has no rule, so a
new view cannot be reachable by accident.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from flask import Blueprint, abort, current_app, request
from sqlalchemy import Table, and_, bindparam, select
from sqlalchemy.orm import Session

from lti_service.core import content
from lti_service.core.auth import SAFE_METHODS, Source, check_csrf, check_origin, load_launch
from lti_service.core.content import ContentItem
from lti_service.core.extensions import db, state
from lti_service.core.models import LmsContext, LmsUser, Placement
from lti_service.core.tokens import Launch

F = TypeVar("F", bound=Callable[..., Any])
Role = Literal["learner", "instructor"]
LEARNER: Role = "learner"  # any launched user (an instructor may preview learner pages)
INSTRUCTOR: Role = "instructor"
RULE_ATTR = "_pathways_rule"


@dataclass(frozen=True)
class Rows:
    """The launch user's rows of one table in the URL's placement (``placement_id``, ``user_id``
    columns), read by the guard's own query, ordered by ``order_by``: a view that needs them
    (a checkpoint answer needs the earlier attempts) saves a round trip (issue 23)."""

    table: Table
    columns: tuple[str, ...]
    order_by: str


@dataclass(frozen=True)
class Rule:
    role: Role
    kinds: tuple[str, ...] | None = None
    """Content kinds of the placement this endpoint serves; None: any kind."""
    rows: Rows | None = None
    """Rows the view reads, loaded with the placement (``PlacementAccess.rows``)."""


@dataclass(frozen=True)
class Owned:
    """An object a URL names that belongs to one learner in one placement (a submission)."""

    obj: Any
    placement_id: int | None
    """None: an object of the learner's own, not of a placement (an imported portfolio): the
    URL's placement stays the one resolved."""
    user_id: int
    personal: bool = False
    """Only its owner may open it (an instructor may not: it is not of their course)."""


OwnedLoader = Callable[[Session, str], Owned | None]
PartLoader = Callable[[ContentItem, str], Any | None]
"""(placement's content item, URL value) -> the part of that content it names, or None."""


@dataclass(frozen=True)
class Access:
    """What the guard resolved for this request; views read, never re-check."""

    launch: Launch
    user: LmsUser
    context: LmsContext


@dataclass(frozen=True)
class PlacementAccess(Access):
    placement: Placement
    item: ContentItem
    owned: Any = None
    """The owned object the URL named (e.g. a Submission), when it named one."""
    part: Any = None
    """The part of the placement's content the URL named (e.g. a lesson's exercise)."""
    rows: tuple[Any, ...] | None = None
    """The rule's ``Rows`` (attribute access by column name); None when the rule asks none."""


class Guard:
    """The loader/authorizer of one blueprint (see the module docstring)."""

    def __init__(self, bp: Blueprint, *, source: Source,
                 owned: Mapping[str, OwnedLoader] | None = None,
                 parts: Mapping[str, PartLoader] | None = None,
                 fail_closed: bool = True) -> None:
        self.source = source
        self.owned = dict(owned or {})
        self.parts = dict(parts or {})
        if fail_closed:
            bp.before_request(_refuse_unguarded)

    def __call__(self, role: Role, *, kinds: tuple[str, ...] | None = None,
                 rows: Rows | None = None) -> Callable[[F], F]:
        rule = Rule(role, kinds, rows)

        def decorate(view: F) -> F:
            @functools.wraps(view)
            def wrapped(**url_values: Any) -> Any:
                access = self.resolve(rule, url_values)
                return view(access, **url_values)

            setattr(wrapped, RULE_ATTR, rule)
            return wrapped  # type: ignore[return-value]

        return decorate

    def resolve(self, rule: Rule, url_values: dict[str, Any]) -> Access:
        """Check and load everything ``rule`` needs; pops the URL values it consumed."""
        launch = load_launch(self.source)
        if rule.role == INSTRUCTOR and not launch.is_instructor:
            abort(403, "this page is for instructors of the course")
        if request.method not in SAFE_METHODS:
            check_origin()
            if self.source == "page":
                check_csrf(launch)
        session = db()
        placement_id: int | None = url_values.pop("placement_id", None)
        user, context, loaded, rows = _load(session, launch, placement_id, rule.rows)
        owned = self._owned(session, launch, url_values)
        if owned is not None and owned.placement_id is not None:
            placement_id = owned.placement_id
        if placement_id is None:
            return Access(launch, user, context)
        if loaded is None or loaded.id != placement_id:
            loaded, rows = session.get(Placement, placement_id), None
        placement, item = _placement(launch, loaded, rule)
        return PlacementAccess(launch, user, context, placement, item,
                               owned.obj if owned else None, self._part(item, url_values), rows)

    def _owned(self, session: Session, launch: Launch, url_values: dict[str, Any]) -> Owned | None:
        for name, loader in self.owned.items():
            if name in url_values:
                found = loader(session, str(url_values.pop(name)))
                if found is None or (found.user_id != launch.user_id
                                     and (found.personal or not launch.is_instructor)):
                    abort(404, "nothing of yours has this id")
                return found
        return None

    def _part(self, item: ContentItem, url_values: dict[str, Any]) -> Any:
        for name, loader in self.parts.items():
            if name in url_values:
                found = loader(item, str(url_values.pop(name)))
                if found is None:
                    abort(404, "this activity has no such part: open it again from the LMS")
                return found
        return None


def _load(session: Session, launch: Launch, placement_id: int | None, rows: Rows | None
          ) -> tuple[LmsUser, LmsContext, Placement | None, tuple[Any, ...] | None]:
    """The launch's user and course, the URL's placement and the rule's ``rows``, in one query
    (401 when the launch names rows that are gone).

    One statement instead of three (four with rows) on every guarded request (the placement is
    None when the URL names none or no such row exists).
    """
    with_rows = rows if placement_id is not None else None
    query = _load_query(placement_id is not None, with_rows)
    params = {"user_id": launch.user_id, "context_pk": launch.context_pk}
    if placement_id is not None:
        params["placement_id"] = placement_id
    found = session.execute(query, params).all()
    if not found:
        abort(401, "this launch is no longer known: open the activity again from the LMS")
    row = found[0]
    key_at = 3 + len(with_rows.columns) if with_rows else 0  # the row's primary key
    loaded = tuple(r for r in found if r[key_at] is not None) if with_rows else None
    return row[0], row[1], (row[2] if placement_id is not None else None), loaded


@functools.cache
def _load_query(with_placement: bool, rows: Rows | None = None) -> Any:
    """``_load``'s statement, built once (building and keying it per request cost as much as
    running it): with ``rows``, one result row per such row (the entities repeated, one
    object each in the session)."""
    entities: list[Any] = [LmsUser, LmsContext]
    if with_placement:
        entities.append(Placement)
    if rows is not None:
        table = rows.table
        entities += [table.c[name].label(name) for name in rows.columns]
        entities.append(next(iter(table.primary_key.columns)).label("row_key"))
    query = (select(*entities).select_from(LmsUser)
             .join(LmsContext, LmsContext.id == bindparam("context_pk"))
             .where(LmsUser.id == bindparam("user_id")))
    if with_placement:
        query = query.outerjoin(Placement, Placement.id == bindparam("placement_id"))
    if rows is not None:
        query = (query.outerjoin(rows.table, and_(
            rows.table.c.placement_id == bindparam("placement_id"),
            rows.table.c.user_id == LmsUser.id)).order_by(rows.table.c[rows.order_by]))
    return query


def _placement(launch: Launch, placement: Placement | None,
               rule: Rule) -> tuple[Placement, ContentItem]:
    if placement is None or placement.context_id != launch.context_pk:
        abort(404, "no such activity in this course: open it again from the LMS")
    if not launch.is_instructor and placement.id != launch.placement_id:
        abort(403, "this is not the activity you launched: open it from your LMS course")
    item = content.find(state().course.get(), placement.content_id)
    if item is None:
        abort(404, f"content {placement.content_id!r} is no longer in the course")
    if rule.kinds is not None and item.kind not in rule.kinds:
        abort(404, f"this activity is {'an' if item.kind[0] in 'aeiou' else 'a'} {item.kind}: "
                   "this request is for another kind of activity")
    return placement, item


def _refuse_unguarded() -> None:
    view = current_app.view_functions.get(request.endpoint or "")
    if view is not None and getattr(view, RULE_ATTR, None) is None:
        abort(403, "this page has no access rule")
