"""`pathways db|platform|keys` on a real SQLite file, through the console script's click group."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from lti_service import create_app
from lti_service.models import ToolKey
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
