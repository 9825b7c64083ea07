"""Register, change, list and remove LMS platforms and their deployments."""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlparse

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from lti_service.core.errors import Conflict, NotFound, ServiceError
from lti_service.core.models import Deployment, Platform
from lti_service.lti.models import AccessToken
from lti_service.lti.service import outbound

URL_MAX = 1000  # the URL columns' length
ID_MAX = 255


def _check_url(value: str, field: str) -> str:
    parsed = urlparse(value)
    if parsed.scheme not in {"http", "https"} or not parsed.netloc:
        raise ServiceError(f"{field}={value[:100]!r} is not an http(s) URL", field=field)
    if len(value) > URL_MAX:
        raise ServiceError(f"{field} is longer than {URL_MAX} characters", field=field)
    return value


def _check_origin(value: str) -> str:
    """An allow-list entry: an http(s) origin, stored as ``scheme://host:port``."""
    where = outbound.origin(value)
    parsed = urlparse(value)
    if where is None or parsed.path not in ("", "/") or parsed.query or parsed.fragment:
        raise ServiceError(f"service origin {value[:100]!r} is not an http(s) origin "
                           "(scheme://host[:port])", field="service_origin")
    return f"{where.scheme}://{where.host}:{where.port}"


def service_origins(platform: Platform) -> frozenset[outbound.Origin]:
    """Where the platform's AGS and NRPS URLs may point: the origins of its registered URLs
    (issuer, login, token, key set) and the operator's allow-list for it. A signed launch that
    names another origin is refused; a stored URL elsewhere is never called."""
    urls = [platform.issuer, platform.auth_login_url, platform.auth_token_url,
            platform.key_set_url, *(platform.service_origins or [])]
    return frozenset(o for o in map(outbound.origin, urls) if o is not None)


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
    service_origins: Iterable[str] = (),
) -> Platform:
    """Add a new registration; an existing issuer + client id is refused, never modified.

    Why: a registration's key-set URL decides whose signatures are launches (and grades). Only an
    operator changes an existing one, explicitly, with :func:`update_platform`.
    """
    if not issuer or not client_id:
        raise ServiceError("issuer and client id are both required", field="issuer")
    if len(issuer) > 500 or len(client_id) > ID_MAX or len(name) > ID_MAX:
        raise ServiceError("issuer (500), client id or name (255 characters) is too long",
                           field="issuer")
    for value, field in (
        (auth_login_url, "login_url"),
        (auth_token_url, "token_url"),
        (key_set_url, "key_set_url"),
    ):
        _check_url(value, field)
    if find_platform(session, issuer, client_id) is not None:
        raise Conflict(f"issuer {issuer} client id {client_id} is already registered and a "
                       "registration never changes an existing one: an operator changes it with "
                       "`pathways platform update`")
    deployments = list(dict.fromkeys(d for d in deployment_ids if d))
    if any(len(d) > ID_MAX for d in deployments):
        raise ServiceError(f"a deployment id is longer than {ID_MAX} characters",
                           field="deployment")
    if not deployments:
        raise ServiceError("give at least one deployment id (--deployment)", field="deployment")
    platform = Platform(
        issuer=issuer,
        client_id=client_id,
        name=name,
        auth_login_url=auth_login_url,
        auth_token_url=auth_token_url,
        key_set_url=key_set_url,
        auth_audience=auth_audience or None,
        service_origins=sorted({_check_origin(o) for o in service_origins}),
        deployments=[Deployment(deployment_id=d) for d in deployments],
    )
    session.add(platform)
    session.flush()
    return platform


def update_platform(
    session: Session,
    issuer: str,
    client_id: str,
    *,
    auth_login_url: str | None = None,
    auth_token_url: str | None = None,
    key_set_url: str | None = None,
    auth_audience: str | None = None,
    name: str | None = None,
    deployment_ids: Iterable[str] = (),
    service_origins: Iterable[str] | None = None,
) -> Platform:
    """The operator's change of a registration: only the given fields, deployments added.

    Stored access tokens are dropped when the token URL or audience changes (they belong to the
    old endpoint). ``service_origins`` replaces the allow-list (an empty list clears it).
    """
    platform = find_platform(session, issuer, client_id)
    if platform is None:
        raise NotFound(f"no platform with issuer {issuer} and client id {client_id}")
    urls = {"auth_login_url": (auth_login_url, "login_url"),
            "auth_token_url": (auth_token_url, "token_url"),
            "key_set_url": (key_set_url, "key_set_url")}
    for attr, (value, field) in urls.items():
        if value is not None:
            setattr(platform, attr, _check_url(value, field))
    token_changed = auth_token_url is not None or auth_audience is not None
    if auth_audience is not None:
        platform.auth_audience = auth_audience or None
    if name is not None:
        platform.name = name
    if service_origins is not None:
        platform.service_origins = sorted({_check_origin(o) for o in service_origins if o})
    known = {d.deployment_id for d in platform.deployments}
    for dep in deployment_ids:
        if dep and dep not in known:
            platform.deployments.append(Deployment(deployment_id=dep))
            known.add(dep)
    if token_changed:
        session.execute(delete(AccessToken).where(AccessToken.platform_id == platform.id))
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
