"""What the built images hold, read from their layers (`docker save`): no key, no secret, no
course content (hidden checks, reference solutions), no test or local state; each image runs
as its own unprivileged user, installs only its part and stays small. The TPU image imports JAX
on CPU and carries libtpu."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import tarfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import CODE_IMAGES, DOCKER

ROOT = Path(__file__).resolve().parents[3]

# Ceilings with room (sizes measured in deploy/README.md): a layer that grows past them is a
# wheelhouse, a cache or a second copy of the venv left in the image.
MAX_MB = {"pathways-service": 400, "pathways-grader-cpu": 900, "pathways-grader-tpu": 1800}

FORBIDDEN_PARTS = {".git", "node_modules", ".venv", "__editable__"}
# This repository's own trees (third-party wheels ship tests of their own, which is fine).
FORBIDDEN_PREFIXES = ("tests/", "srv/", "var/images/")
# The user's home (PATHWAYS_VAR_DIR) holds only useradd's skeleton: no key, no database.
HOME_SKELETON = {".bashrc", ".profile", ".bash_logout"}
OURS = ("pathways/", "course/", "grading_contract/", "grader_worker/", "lti_service/",
        "jax_pathways-")
PEM_PRIVATE_KEY = re.compile(rb"-----BEGIN [A-Z ]*PRIVATE KEY-----\s+[A-Za-z0-9+/=\s]{64,}-----END")
FORBIDDEN_INSIDE = ("site-packages/tests/", "site-packages/var/", "course/content",
                    "/grader_worker/hostile/")
FORBIDDEN_NAMES = {"grading_key", ".env", "stack.env", "compose.env", "pathways.sqlite3",
                   "id_rsa", "id_ed25519", "key.pem", "tls.key"}


def _hidden_course_files() -> dict[str, str]:
    """sha256 -> path of every hidden check and reference solution of the course."""
    content = ROOT / "course" / "content"
    found = {}
    for path in content.rglob("*.py"):
        if path.name == "checks.py" or "solution" in path.name or "solution" in path.parts:
            data = path.read_bytes()
            if len(data) >= 64:  # tiny files (an empty __init__) would match anything
                found[hashlib.sha256(data).hexdigest()] = str(path.relative_to(ROOT))
    assert len(found) > 20, "the course's checks and solutions were not found"
    return found


def _layer_files(ref: str) -> Iterator[tuple[str, bytes]]:
    """(path, content) of every regular file of every layer of ``ref``."""
    with subprocess.Popen([DOCKER, "save", ref], stdout=subprocess.PIPE) as saved:
        assert saved.stdout is not None
        yield from _read_saved(saved.stdout)
    assert saved.returncode == 0


def _read_saved(stream) -> Iterator[tuple[str, bytes]]:  # type: ignore[no-untyped-def]
    with tarfile.open(fileobj=stream, mode="r|") as outer:
        for member in outer:
            if not member.name.endswith("layer.tar"):
                continue
            layer = outer.extractfile(member)
            assert layer is not None
            with tarfile.open(fileobj=layer, mode="r|") as inner:
                for entry in inner:
                    if entry.isfile():
                        data = inner.extractfile(entry)
                        yield entry.name.removeprefix("./"), data.read() if data else b""


@pytest.mark.parametrize("name", CODE_IMAGES)
def test_image_layers_hold_no_secret_no_hidden_check_no_local_state(
        name: str, image: Callable[[str], str]) -> None:
    ref = image(name)
    hidden = _hidden_course_files()
    problems: list[str] = []
    files = 0
    for path, data in _layer_files(ref):
        files += 1
        parts = set(Path(path).parts)
        if Path(path).name in FORBIDDEN_NAMES or parts & FORBIDDEN_PARTS or \
                path.startswith(FORBIDDEN_PREFIXES) or any(p in path for p in FORBIDDEN_INSIDE) \
                or (path.startswith("var/lib/pathways/") and Path(path).name not in HOME_SKELETON):
            problems.append(f"{path}: local state, tests or course content")
        # A key block anywhere but in third-party packages' own test data (jwcrypto's tests)
        # and compiled libraries' self-test keys (Debian's libgnutls).
        _, site, inside = path.partition("site-packages/")
        third_party = bool(site) and not inside.startswith(OURS)
        if not third_party and not data.startswith(b"\x7fELF") and PEM_PRIVATE_KEY.search(data):
            problems.append(f"{path}: a private key")
        digest = hashlib.sha256(data).hexdigest()
        if digest in hidden:
            problems.append(f"{path}: a copy of {hidden[digest]}")
    assert files > 1000, f"{ref}: only {files} files read from its layers"
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize("name", CODE_IMAGES)
def test_image_runs_unprivileged_and_stays_small(
        name: str, image: Callable[[str], str], engine: Callable[..., str]) -> None:
    ref = image(name)
    config = json.loads(engine("image", "inspect", ref))[0]
    assert config["Config"]["User"] == "pathways"
    assert engine("run", "--rm", "--network", "none", "--entrypoint", "id", ref).split()[:2] == [
        "uid=10001(pathways)", "gid=10001(pathways)"]
    size_mb = config["Size"] / 1e6
    assert size_mb < MAX_MB[name], f"{ref} is {size_mb:.0f} MB"
    # Few layers above the base: vfs copies each one whole.
    assert len(config["RootFS"]["Layers"]) <= 4, config["RootFS"]["Layers"]


PROBE = """
import importlib.util as u, os, sys
print(",".join(m for m in sys.argv[1:] if u.find_spec(m)))
print(os.environ.get("COURSE_ROOT"), os.path.isdir("/srv/course"))
"""


@pytest.mark.parametrize(("name", "present", "absent"), [
    ("pathways-service", {"lti_service", "flask", "psycopg", "gunicorn"},
     {"grader_worker", "jax", "jaxlib"}),
    ("pathways-grader-cpu", {"grader_worker", "jax", "jaxlib", "redis"},
     {"lti_service", "flask", "sqlalchemy", "psycopg", "devlms", "libtpu"}),
    ("pathways-grader-tpu", {"grader_worker", "jax", "jaxlib", "libtpu"},
     {"lti_service", "flask", "sqlalchemy", "psycopg", "devlms"}),
])
def test_each_image_installs_its_own_part_and_no_course(
        name: str, present: set[str], absent: set[str], image: Callable[[str], str],
        engine: Callable[..., str]) -> None:
    out = engine("run", "--rm", "--network", "none", image(name), "python3", "-c", PROBE,
                 *sorted(present | absent)).splitlines()
    found = set(out[0].split(",")) - {""}
    assert present <= found and not absent & found, (name, found)
    # The course comes at run time (a read-only mount at COURSE_ROOT), never in the image.
    assert out[1] == "/srv/course False"


def test_tpu_image_imports_jax_on_cpu_and_carries_libtpu(
        image: Callable[[str], str], engine: Callable[..., str]) -> None:
    out = engine("run", "--rm", "--network", "none", "-e", "JAX_PLATFORMS=cpu",
                 image("pathways-grader-tpu"), "python3", "-c",
                 "import os, jax, libtpu; print(jax.__version__, jax.devices()[0].platform, "
                 "os.path.getsize(libtpu.get_library_path()) > 50_000_000)")
    lock = (ROOT / "requirements-grader.txt").read_text()
    version = next(line.split("==")[1] for line in lock.splitlines() if line.startswith("jax=="))
    assert out.split() == [version, "cpu", "True"]
