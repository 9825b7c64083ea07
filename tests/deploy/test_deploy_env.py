"""One documented list of environment variables (docs/CONFIGURATION.md) that is true: every
variable a deploy file uses has a row, and each file the row says reads it really does."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
DOC = ROOT / "docs" / "CONFIGURATION.md"

# Variables of other programs' own images or tools, and shell locals: not ours to document.
FOREIGN = {
    "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "PIP_NO_CACHE_DIR", "DEBIAN_FRONTEND",
    "JAX_VERSION", "MAINPID", "POSTGRES_USER", "POSTGRES_DB", "TEST_DATABASE_URL",
    "TEST_REDIS_URL",
}
# Readers that are programs rather than files of this repository.
PROGRAMS = {"JAX"}
NAME = r"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"
PATTERNS = [
    re.compile(r"\$\{" + NAME),  # ${VAR} and ${VAR:-default} (shell, systemd, compose, nginx)
    re.compile(r"\$" + NAME + r"\b"),  # $VAR
    re.compile(r"^\s*(?:export\s+)?" + NAME + r"=", re.M),  # env files, shell assignments
    re.compile(r"^\s*Environment=" + NAME + "=", re.M),
    re.compile(r"^\s*UnsetEnvironment=(.*)$", re.M),
    re.compile(r"^ENV\s+(.*)$", re.M),  # Dockerfile ENV A=1 B=2
    re.compile(r"environ\.get\(\s*\"" + NAME + '"'),
    re.compile(r"_int\(\s*\"" + NAME + '"'),
]


def deploy_files() -> list[Path]:
    return sorted(
        p for p in DEPLOY.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and not p.name.endswith(".dockerignore")
    )


def names_in(path: Path) -> set[str]:
    text = path.read_text()
    found: set[str] = set()
    for pattern in PATTERNS:
        for match in pattern.finditer(text):
            found.update(re.findall(NAME, match.group(1)))
    if path.suffix in {".yml", ".yaml"}:  # Kubernetes manifests: env of every container
        for doc in yaml.safe_load_all(text):
            pod = (doc.get("spec") or {}).get("template", {}).get("spec", {})
            for container in pod.get("containers", []) + pod.get("initContainers", []):
                found.update(e["name"] for e in container.get("env", []))
            if doc.get("kind") == "ConfigMap":
                found.update(doc.get("data") or {})
    return {name for name in found if re.fullmatch(NAME, name)} - FOREIGN


def documented() -> dict[str, list[str]]:
    """variable -> its "read by" cells, from every table row that starts with `VAR`."""
    rows: dict[str, list[str]] = {}
    for line in DOC.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and re.fullmatch(r"`" + NAME + "`", cells[0]):
            rows.setdefault(cells[0].strip("`"), []).append(cells[2])
    return rows


def test_the_scan_finds_variables_in_every_kind_of_deploy_file() -> None:
    assert {"PATHWAYS_WEB_WORKERS", "PATHWAYS_FORWARDED_ALLOW_IPS"} <= names_in(
        DEPLOY / "gunicorn.conf.py")
    assert {"UNSET_ME", "SET_ME"} <= {
        n for p in PATTERNS for m in p.finditer("UnsetEnvironment=UNSET_ME\nSET_ME=1\n")
        for n in re.findall(NAME, m.group(1))
    }
    assert "PATHWAYS_FRAME_ANCESTORS" in names_in(DEPLOY / "nginx" / "pathways.conf")
    assert {"DATABASE_URL", "REDIS_URL"} <= names_in(DEPLOY / "k8s" / "web.yaml")
    assert "TOOL_BASE_URL" in names_in(DEPLOY / "k8s" / "namespace.yaml")
    assert "DATABASE_URL" in names_in(DEPLOY / "systemd" / "pathways-worker@.service")


def test_every_variable_used_in_deploy_is_documented() -> None:
    rows = documented()
    missing = {
        f"{name} (used in {path.relative_to(ROOT)})"
        for path in deploy_files()
        for name in names_in(path)
        if name not in rows
    }
    assert not missing, "add rows to docs/CONFIGURATION.md for: " + ", ".join(sorted(missing))


def test_every_documented_reader_reads_the_variable() -> None:
    wrong = []
    for name, cells in documented().items():
        for cell in cells:
            readers = re.findall(r"`([^`]+)`", cell)
            programs = [word for word in PROGRAMS if word in cell]
            assert readers or programs, f"{name}: the 'read by' cell names no file"
            for reader in readers:
                path = ROOT / reader
                if not path.is_file():
                    wrong.append(f"{name}: {reader} does not exist")
                elif name not in path.read_text():
                    wrong.append(f"{name}: {reader} never mentions it")
    assert not wrong, "docs/CONFIGURATION.md 'read by' is wrong: " + "; ".join(wrong)
