"""`pathways db|platform|keys` on a real SQLite file, through the console script's click group."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from lti_service import create_app
from lti_service.core.models import Platform, utcnow
from lti_service.lti.models import AccessToken, RegistrationInvite, ToolKey
from lti_service.lti.service import invites
from pathways.cli import cli


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("PATHWAYS_VAR_DIR", str(tmp_path / "var"))
    return url


def run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_platform_add_list_remove(env: str) -> None:
    assert "up to date" in run("db", "upgrade")
    out = run("platform", "add", "--issuer", "https://canvas.example", "--client-id", "100",
              "--login-url", "https://canvas.example/api/lti/authorize_redirect",
              "--token-url", "https://canvas.example/login/oauth2/token",
              "--key-set-url", "https://canvas.example/api/lti/security/jwks",
              "--deployment", "d1", "--deployment", "d2")
    assert "deployments d1, d2" in out
    run("platform", "add", "--issuer", "https://d2l.example", "--client-id", "abc",
        "--login-url", "https://d2l.example/auth", "--token-url", "https://auth.brightspace.com/t",
        "--key-set-url", "https://d2l.example/jwks", "--deployment", "x",
        "--token-audience", "https://api.brightspace.com/auth/token")
    listing = run("platform", "list")
    assert "https://canvas.example\t100\td1,d2" in listing and "https://d2l.example" in listing
    run("platform", "remove", "--issuer", "https://canvas.example", "--client-id", "100")
    assert "canvas.example" not in run("platform", "list")
    bad = CliRunner().invoke(cli, ["platform", "add", "--issuer", "i", "--client-id", "c",
                                   "--login-url", "not-a-url", "--token-url", "https://t",
                                   "--key-set-url", "https://k", "--deployment", "d"])
    assert bad.exit_code != 0 and "login_url='not-a-url' is not an http(s) URL" in bad.output
    missing = CliRunner().invoke(cli, ["platform", "remove", "--issuer", "nope",
                                       "--client-id", "x"])
    assert missing.exit_code != 0 and "no platform" in missing.output


def test_keys_rotate_serves_current_and_previous(env: str, tmp_path: Path) -> None:
    run("db", "upgrade")
    first = run("keys", "rotate").split()[-1]
    second = run("keys", "rotate").split()[-1]
    third = run("keys", "rotate").split()[-1]
    assert len({first, second, third}) == 3
    app = create_app({"database_url": env, "var_dir": tmp_path / "var"})
    served = [k["kid"] for k in app.test_client().get("/lti/jwks").get_json()["keys"]]
    assert served == [third, second]
    with Session(create_engine(env)) as session:
        current = session.scalars(select(ToolKey).where(ToolKey.current.is_(True))).one()
        assert current.kid == third


def test_wsgi_app_and_serve_command(env: str, tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    run("db", "upgrade")
    code = ("from lti_service.wsgi import app; c = app.test_client(); "
            "r = c.get('/lti/jwks'); print(r.status_code, len(r.get_json()['keys']))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env={**os.environ}, check=True)
    assert out.stdout.split() == ["200", "1"]
    assert "--port" in run("serve", "--help")


CANVAS = ["--issuer", "https://canvas.example", "--client-id", "100"]


def test_add_never_changes_a_platform_and_update_does_only_what_it_is_told(env: str) -> None:
    run("db", "upgrade")
    run("platform", "add", *CANVAS, "--login-url", "https://canvas.example/auth",
        "--token-url", "https://canvas.example/token", "--key-set-url", "https://canvas.example/k",
        "--deployment", "d1", "--token-audience", "https://canvas.example/aud")
    again = CliRunner().invoke(cli, ["platform", "add", *CANVAS,
                                     "--login-url", "https://evil.example/auth",
                                     "--token-url", "https://evil.example/token",
                                     "--key-set-url", "https://evil.example/k",
                                     "--deployment", "d1"])
    assert again.exit_code != 0 and "pathways platform update" in again.output
    assert "https://canvas.example\t100\td1\thttps://canvas.example/auth" in run("platform", "list")

    with Session(create_engine(env)) as session:
        platform = session.scalars(select(Platform)).one()
        session.add(AccessToken(platform_id=platform.id, scope_key="s", token="old",
                                expires_at=utcnow() + timedelta(hours=1)))
        session.commit()
    nothing = CliRunner().invoke(cli, ["platform", "update", *CANVAS])
    assert nothing.exit_code != 0 and "nothing to change" in nothing.output
    out = run("platform", "update", *CANVAS, "--key-set-url", "https://canvas.example/k2",
              "--deployment", "d2")
    assert "keys https://canvas.example/k2" in out and "deployments d1, d2" in out
    with Session(create_engine(env)) as session:
        p = session.scalars(select(Platform)).one()
        assert (p.auth_login_url, p.auth_token_url, p.key_set_url, p.auth_audience) == (
            "https://canvas.example/auth", "https://canvas.example/token",
            "https://canvas.example/k2", "https://canvas.example/aud")
        assert session.scalars(select(AccessToken)).one().token == "old"  # token URL unchanged
    run("platform", "update", *CANVAS, "--token-url", "https://canvas.example/token2")
    with Session(create_engine(env)) as session:
        assert session.scalars(select(AccessToken)).all() == []  # the old endpoint's token
    unknown = CliRunner().invoke(cli, ["platform", "update", "--issuer", "https://x.example",
                                       "--client-id", "1", "--name", "n"])
    assert unknown.exit_code != 0 and "no platform" in unknown.output


def test_invite_prints_a_one_time_url_that_the_service_accepts(
        env: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOL_BASE_URL", "https://tool.example.edu")
    run("db", "upgrade")
    result = CliRunner().invoke(cli, ["platform", "invite", "--hours", "2",
                                      "--issuer", "https://canvas.example"])
    assert result.exit_code == 0, result.output
    url = result.stdout.strip()
    assert url.startswith("https://tool.example.edu/lti/register?invite=")
    assert "single use" in result.stderr and "https://canvas.example" in result.stderr
    token = url.split("invite=", 1)[1]
    with Session(create_engine(env)) as session:
        stored = session.scalars(select(RegistrationInvite)).one()
        assert token not in stored.token_sha256 and stored.issuer == "https://canvas.example"
        assert timedelta(hours=1.9) < stored.expires_at - utcnow() <= timedelta(hours=2)
        assert invites.check(session, token).id == stored.id
    client = create_app({"database_url": env, "var_dir": tmp_path / "var"}).test_client()
    # A valid invite gets past the gate (and asks for the LMS's parameters); a wrong one does not.
    assert client.get("/lti/register", query_string={"invite": token}).status_code == 400
    assert client.get("/lti/register", query_string={"invite": token[:-1]}).status_code == 403
    bad = CliRunner().invoke(cli, ["platform", "invite", "--hours", "500"])
    assert bad.exit_code != 0
