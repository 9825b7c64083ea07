"""Register, list and remove LMS platforms and their deployments."""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlparse

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..models import Deployment, Platform
from .errors import Conflict, NotFound, ServiceError


def _check_url(value: str, field: str) -> str:
    parsed = urlparse(value)
    if parsed.scheme not in {"http", "https"} or not parsed.netloc:
        raise ServiceError(f"{field}={value!r} is not an http(s) URL", field=field)
    return value


def add_platform(
    session: Session,
    *,
    issuer: str,
    client_id: str,
    auth_login_url: str,
    auth_token_url: str,
    key_set_url: str,
    deployment_ids: Iterable[str],
    auth_audience: str | None = None,
    name: str = "",
) -> Platform:
    """Add a registration, or add deployment ids to an existing one (same issuer + client)."""
    if not issuer or not client_id:
        raise ServiceError("issuer and client id are both required", field="issuer")
    for value, field in (
        (auth_login_url, "login_url"),
        (auth_token_url, "token_url"),
        (key_set_url, "key_set_url"),
    ):
        _check_url(value, field)
    platform = find_platform(session, issuer, client_id)
    if platform is None:
        platform = Platform(
            issuer=issuer,
            client_id=client_id,
            name=name,
            auth_login_url=auth_login_url,
            auth_token_url=auth_token_url,
            key_set_url=key_set_url,
            auth_audience=auth_audience or None,
        )
        session.add(platform)
    else:
        platform.auth_login_url = auth_login_url
        platform.auth_token_url = auth_token_url
        platform.key_set_url = key_set_url
        platform.auth_audience = auth_audience or None
        platform.name = name or platform.name
    known = {d.deployment_id for d in platform.deployments}
    for dep in deployment_ids:
        if dep and dep not in known:
            platform.deployments.append(Deployment(deployment_id=dep))
            known.add(dep)
    if not known:
        raise ServiceError("give at least one deployment id (--deployment)", field="deployment")
    session.flush()
    return platform


def find_platform(session: Session, issuer: str, client_id: str | None) -> Platform | None:
    query = select(Platform).where(Platform.issuer == issuer)
    if client_id is not None:
        query = query.where(Platform.client_id == client_id)
    rows = list(session.scalars(query))
    if client_id is None and len(rows) > 1:
        raise Conflict(f"issuer {issuer} has several client ids: the request must name one")
    return rows[0] if rows else None


def list_platforms(session: Session) -> list[Platform]:
    return list(session.scalars(select(Platform).order_by(Platform.id)))


def remove_platform(session: Session, issuer: str, client_id: str) -> None:
    platform = find_platform(session, issuer, client_id)
    if platform is None:
        raise NotFound(f"no platform with issuer {issuer} and client id {client_id}")
    session.delete(platform)
    session.flush()
