"""The deploy files checked by the tools that will read them: systemd, gunicorn, nginx, bash."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
GUNICORN = Path(sys.executable).with_name("gunicorn")
UNITS = ("pathways-web.service", "pathways-consumer.service", "pathways-worker@.service")


def installed_units(target: Path) -> list[Path]:
    """The units as installed, but pointing at this checkout (verify needs real executables)."""
    target.mkdir(parents=True, exist_ok=True)
    venv = Path(sys.executable).parent.parent
    for name in UNITS:
        text = (DEPLOY / "systemd" / name).read_text()
        text = text.replace("/opt/pathways/.venv", str(venv)).replace("/opt/pathways", str(ROOT))
        (target / name).write_text(text)
    return [target / "pathways-web.service", target / "pathways-consumer.service",
            target / "pathways-worker@1.service"]


def test_systemd_units_verify(tmp_path: Path, system_tool: Callable[[str], str]) -> None:
    analyze = system_tool("systemd-analyze")
    units = installed_units(tmp_path)
    result = subprocess.run(
        [analyze, "verify", *map(str, units)], capture_output=True, text=True, timeout=120,
        cwd=tmp_path,
    )
    # Unknown keys are only warnings to systemd; here any message is a failure.
    messages = [line for line in result.stderr.splitlines() if str(tmp_path) in line
                or "pathways" in line]
    assert result.returncode == 0 and not messages, result.stderr


def test_systemd_verify_catches_a_broken_unit(
    tmp_path: Path, system_tool: Callable[[str], str]
) -> None:
    """The check above can fail: a typo and a missing program are reported."""
    analyze = system_tool("systemd-analyze")
    unit = tmp_path / "broken.service"
    unit.write_text("[Service]\nExecStart=/nonexistent/pathways serve\nUsr=pathways\n")
    result = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True,
                            timeout=120, cwd=tmp_path)
    assert result.returncode != 0 and "Unknown key" in result.stderr


def test_units_share_env_file_migrate_and_keep_secrets_from_graders() -> None:
    texts = {name: (DEPLOY / "systemd" / name).read_text() for name in UNITS}
    for name, text in texts.items():
        assert "EnvironmentFile=/etc/pathways/env" in text, name
        assert "NoNewPrivileges=yes" in text and "ProtectSystem=strict" in text, name
        assert "User=pathways" in text, name
    assert "ExecStartPre=/opt/pathways/.venv/bin/pathways db upgrade" in texts[UNITS[0]]
    worker = texts["pathways-worker@.service"]
    assert "UnsetEnvironment=DATABASE_URL SECRET_KEY" in worker
    assert "--platform ${PATHWAYS_GRADER_PLATFORM}" in worker


def gunicorn_config(**env: str) -> dict[str, str]:
    result = subprocess.run(
        [str(GUNICORN), "-c", str(DEPLOY / "gunicorn.conf.py"), "--print-config"],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
        env={**os.environ, **env},
    )
    # gunicorn prints the settings, then loads the app (checked on its own below).
    assert "wsgi_app" in result.stdout, result.stderr
    return {
        key.strip(): value.strip()
        for key, _, value in (line.partition("=") for line in result.stdout.splitlines())
    }


def test_gunicorn_config_defaults_to_loopback_and_trusts_only_the_local_proxy() -> None:
    env = {k: "" for k in ("PATHWAYS_WEB_BIND", "PATHWAYS_WEB_WORKERS",
                           "PATHWAYS_FORWARDED_ALLOW_IPS")}
    config = gunicorn_config(**env)
    assert config["bind"] == "['127.0.0.1:8000']"
    assert config["forwarded_allow_ips"] == "['127.0.0.1', '::1']"
    assert config["wsgi_app"] == "lti_service.wsgi:app"
    assert int(config["workers"]) >= 2
    assert "%(q)s" not in config["access_log_format"], "query strings carry LTI tokens"


def test_gunicorn_config_reads_its_environment() -> None:
    config = gunicorn_config(PATHWAYS_WEB_WORKERS="3", PATHWAYS_WEB_BIND="127.0.0.1:9001",
                             PATHWAYS_FORWARDED_ALLOW_IPS="10.0.0.5")
    assert (config["workers"], config["bind"]) == ("3", "['127.0.0.1:9001']")
    assert config["forwarded_allow_ips"] == "['10.0.0.5']"


def test_gunicorn_config_rejects_a_bad_number_by_name() -> None:
    result = subprocess.run(
        [str(GUNICORN), "-c", str(DEPLOY / "gunicorn.conf.py"), "--print-config"],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
        env={**os.environ, "PATHWAYS_WEB_WORKERS": "four"},
    )
    assert "PATHWAYS_WEB_WORKERS='four' is not an integer" in result.stdout + result.stderr


def test_gunicorn_check_config_loads_the_service(tmp_path: Path) -> None:
    """`--check-config` imports lti_service.wsgi:app, as a real start would."""
    result = subprocess.run(
        [str(GUNICORN), "-c", str(DEPLOY / "gunicorn.conf.py"), "--check-config"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
        env={**os.environ, "PATHWAYS_VAR_DIR": str(tmp_path), "DATABASE_URL": "",
             "JAX_PLATFORMS": "cpu"},
    )
    assert result.returncode == 0, result.stdout + result.stderr


def render_nginx(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(DEPLOY / "nginx" / "render.sh"), str(tmp_path / "site.conf")],
        capture_output=True, text=True, timeout=60, env={**os.environ, **env},
    )


def test_nginx_config_passes_nginx_t(tmp_path: Path, system_tool: Callable[[str], str]) -> None:
    nginx = system_tool("nginx")
    system_tool("envsubst")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
         "-days", "1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )
    ancestors = "https://lms.example.edu http://localhost:5001"
    rendered = render_nginx(tmp_path, PATHWAYS_SERVER_NAME="tool.example.edu",
                            PATHWAYS_FRAME_ANCESTORS=ancestors,
                            PATHWAYS_TLS_CERT=str(cert), PATHWAYS_TLS_KEY=str(key))
    assert rendered.returncode == 0, rendered.stderr
    site = (tmp_path / "site.conf").read_text()
    assert f"frame-ancestors 'self' {ancestors}" in site
    assert "X-Frame-Options" in site and "add_header X-Frame-Options" not in site
    assert "proxy_set_header X-Forwarded-Proto $scheme;" in site
    assert "return 301 https://$host$request_uri;" in site
    assert "${" not in site
    (tmp_path / "nginx.conf").write_text(
        f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\nevents {{}}\n"
        f"http {{ access_log off; include {tmp_path}/site.conf; }}\n"
    )
    result = subprocess.run([nginx, "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"PATHWAYS_SERVER_NAME": "tool.example.edu"}, "set PATHWAYS_FRAME_ANCESTORS"),
        ({"PATHWAYS_SERVER_NAME": "a", "PATHWAYS_FRAME_ANCESTORS": "https://x; script-src *"},
         "PATHWAYS_FRAME_ANCESTORS=https://x; script-src *: contains one of"),
    ],
)
def test_nginx_render_refuses_missing_or_unsafe_values(
    tmp_path: Path, env: dict[str, str], message: str, system_tool: Callable[[str], str]
) -> None:
    system_tool("envsubst")
    base = {k: "" for k in ("PATHWAYS_SERVER_NAME", "PATHWAYS_FRAME_ANCESTORS")}
    result = render_nginx(tmp_path, **{**base, **env})
    assert result.returncode != 0 and message in result.stderr
    assert not (tmp_path / "site.conf").exists()


def test_tpu_setup_writes_a_grader_that_has_only_the_queue(tmp_path: Path) -> None:
    root = tmp_path / "vm"
    result = subprocess.run(
        ["bash", str(DEPLOY / "tpu" / "setup-grader.sh"), "redis://10.0.0.2:6379/0",
         "--root", str(root), "--python", sys.executable],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "PATHWAYS_GRADING_KEY": "g" * 64},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    env = (root / "etc/pathways/env").read_text()
    assert "REDIS_URL=redis://10.0.0.2:6379/0" in env
    assert "PATHWAYS_GRADER_PLATFORM=tpu" in env
    assert f"PATHWAYS_GRADING_KEY={'g' * 64}" in env
    assert "DATABASE_URL" not in env and "SECRET_KEY" not in env
    assert (root / "etc/systemd/system/pathways-worker@.service").is_file()
    assert (root / "opt/pathways/grader_worker/config.py").is_file()
    assert not (root / "opt/pathways/var").exists(), "no local state is copied to the VM"
    assert "jax[tpu]==" in result.stdout


def test_tpu_setup_rejects_a_url_that_is_not_redis(tmp_path: Path) -> None:
    result = subprocess.run(
        ["bash", str(DEPLOY / "tpu" / "setup-grader.sh"), "postgresql://db/pathways",
         "--root", str(tmp_path)],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 2 and "expected redis://HOST:PORT/DB" in result.stderr
    assert not any(tmp_path.iterdir()), "nothing is written before the input is checked"
