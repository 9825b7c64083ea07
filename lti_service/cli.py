"""``pathways db|platform|keys|serve``: thin wrappers over the LTI feature's services."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import timedelta

import click
from flask import Flask
from sqlalchemy.orm import Session

from lti_service.core.config import Config
from lti_service.core.db import make_engine, make_session_factory, upgrade
from lti_service.core.errors import ServiceError
from lti_service.lti.service import invites as invite_service
from lti_service.lti.service import keys as key_service
from lti_service.lti.service import platforms as platform_service


@contextlib.contextmanager
def _session() -> Iterator[Session]:
    cfg = Config.from_env()
    engine = make_engine(cfg.database_url)
    session = make_session_factory(engine)()
    try:
        yield session
        session.commit()
    except ServiceError as exc:
        session.rollback()
        raise click.ClickException(exc.message) from exc
    finally:
        session.close()
        engine.dispose()


@click.group()
def db() -> None:
    """Create or upgrade the service database (Alembic)."""


@db.command("upgrade")
def db_upgrade() -> None:
    """Run every migration (alembic upgrade heads) on DATABASE_URL."""
    cfg = Config.from_env()
    upgrade(cfg.database_url)
    click.echo("database is up to date")


@click.group()
def platform() -> None:
    """Register, invite, change, list and remove LMS platforms."""


@platform.command("add")
@click.option("--issuer", required=True, help="The platform's issuer (iss) URL.")
@click.option("--client-id", required=True, help="The client id the platform gave the tool.")
@click.option("--login-url", required=True, help="OIDC authorization (login) endpoint.")
@click.option("--token-url", required=True, help="OAuth2 token endpoint (AGS, NRPS).")
@click.option("--key-set-url", required=True, help="The platform's JWKS URL.")
@click.option("--deployment", "deployments", multiple=True, required=True,
              help="A deployment id (repeat for several).")
@click.option("--token-audience", default=None, help="Token aud if not the token URL (D2L).")
@click.option("--name", default="", help="A label for lists.")
@click.option("--service-origin", "service_origins", multiple=True,
              help="An origin (scheme://host[:port]) its AGS/NRPS URLs may use besides its "
                   "registered URLs' origins (repeat for several).")
def platform_add(issuer: str, client_id: str, login_url: str, token_url: str, key_set_url: str,
                 deployments: tuple[str, ...], token_audience: str | None, name: str,
                 service_origins: tuple[str, ...]) -> None:
    """Register a new platform (an existing one is changed with `platform update`)."""
    with _session() as session:
        p = platform_service.add_platform(
            session, issuer=issuer, client_id=client_id, auth_login_url=login_url,
            auth_token_url=token_url, key_set_url=key_set_url, deployment_ids=deployments,
            auth_audience=token_audience, name=name, service_origins=service_origins)
        click.echo(f"platform {p.id}: {p.issuer} client {p.client_id} deployments "
                   + ", ".join(d.deployment_id for d in p.deployments))


@platform.command("update")
@click.option("--issuer", required=True, help="The registered platform's issuer.")
@click.option("--client-id", required=True, help="The registered platform's client id.")
@click.option("--login-url", default=None, help="New OIDC authorization (login) endpoint.")
@click.option("--token-url", default=None, help="New OAuth2 token endpoint.")
@click.option("--key-set-url", default=None, help="New JWKS URL (the platform's keys moved).")
@click.option("--deployment", "deployments", multiple=True,
              help="A deployment id to add (repeat for several).")
@click.option("--token-audience", default=None, help="New token aud ('' clears it).")
@click.option("--name", default=None, help="New label for lists.")
@click.option("--service-origin", "service_origins", multiple=True,
              help="Replace the allow-list of origins for its AGS/NRPS URLs (repeat; give '' "
                   "once to clear it).")
def platform_update(issuer: str, client_id: str, login_url: str | None, token_url: str | None,
                    key_set_url: str | None, deployments: tuple[str, ...],
                    token_audience: str | None, name: str | None,
                    service_origins: tuple[str, ...]) -> None:
    """Change a registered platform: only the options given; deployments are added."""
    if all(v is None for v in (login_url, token_url, key_set_url, token_audience, name)) \
            and not deployments and not service_origins:
        raise click.UsageError("nothing to change: give at least one option to change")
    with _session() as session:
        p = platform_service.update_platform(
            session, issuer, client_id, auth_login_url=login_url, auth_token_url=token_url,
            key_set_url=key_set_url, auth_audience=token_audience, name=name,
            deployment_ids=deployments, service_origins=service_origins or None)
        click.echo(f"platform {p.id}: {p.issuer} client {p.client_id} updated: login "
                   f"{p.auth_login_url} token {p.auth_token_url} keys {p.key_set_url} "
                   "deployments " + ", ".join(d.deployment_id for d in p.deployments)
                   + " service origins " + (", ".join(p.service_origins) or "-"))


@platform.command("invite")
@click.option("--hours", default=24, show_default=True, type=click.IntRange(1, 168),
              help="How long the URL stays valid.")
@click.option("--issuer", default=None,
              help="Accept only this platform issuer (recommended when you know it).")
def platform_invite(hours: int, issuer: str | None) -> None:
    """Print a one-time Dynamic Registration URL for an LMS admin to paste into the LMS."""
    cfg = Config.from_env()
    with _session() as session:
        token, invite = invite_service.create(session, valid_for=timedelta(hours=hours),
                                              issuer=issuer)
        click.echo(f"{cfg.tool_base_url}/lti/register?invite={token}")
        click.echo(f"single use, valid until {invite.expires_at:%Y-%m-%d %H:%M} UTC"
                   + (f", only for issuer {issuer}" if issuer else ""), err=True)


@platform.command("list")
def platform_list() -> None:
    """List registered platforms."""
    with _session() as session:
        for p in platform_service.list_platforms(session):
            deps = ",".join(d.deployment_id for d in p.deployments)
            click.echo(f"{p.id}\t{p.issuer}\t{p.client_id}\t{deps}\t{p.auth_login_url}")


@platform.command("remove")
@click.option("--issuer", required=True)
@click.option("--client-id", required=True)
def platform_remove(issuer: str, client_id: str) -> None:
    """Remove a platform with its deployments, users and placements."""
    with _session() as session:
        platform_service.remove_platform(session, issuer, client_id)
        click.echo(f"removed {issuer} client {client_id}")


@click.group()
def keys() -> None:
    """Generate and rotate the tool's signing keys."""


@keys.command("rotate")
def keys_rotate() -> None:
    """Make a new signing key; the JWKS keeps serving the previous one."""
    with _session() as session:
        key = key_service.rotate(session)
        click.echo(f"current kid {key.kid}")


@click.command()
@click.option("--host", default="127.0.0.1")
@click.option("--port", default=5000, type=int)
def serve(host: str, port: int) -> None:
    """Run the tool with Flask's development server (deploy uses gunicorn lti_service.wsgi:app)."""
    from lti_service import create_app
    from pathways import logs

    cfg = Config.from_env()
    logs.configure(cfg.log_level)
    create_app(cfg).run(host=host, port=port, threaded=True)


def register(app: Flask) -> None:
    for group in (db, platform, keys):
        app.cli.add_command(group)
