"""Static checks of deploy/: compose and Dockerfiles agree with the tree, scripts parse."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"

COMPOSE = DEPLOY / "docker-compose.yml"


def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def test_compose_has_every_part_of_a_deployment() -> None:
    services = compose()["services"]
    assert {"postgres", "redis", "migrate", "web", "consumer", "grader", "grader-tpu"} <= set(
        services
    )
    # Migrations before code: web and consumer wait for the one-shot migrate to succeed.
    assert services["migrate"]["command"] == ["pathways", "db", "upgrade"]
    for name in ("web", "consumer"):
        assert services[name]["depends_on"]["migrate"] == {
            "condition": "service_completed_successfully"
        }
    # Graders get only the queue: no database, no keys.
    for name in ("grader", "grader-tpu"):
        env = services[name]["environment"]
        assert "REDIS_URL" in env
        assert not {"DATABASE_URL", "SECRET_KEY"} & set(env), name
        assert "deploy" not in services[name] or "replicas" not in services[name]["deploy"]


def test_compose_builds_reference_dockerfiles_that_exist() -> None:
    built = 0
    for name, service in compose()["services"].items():
        build = service.get("build")
        if build is None:
            assert "image" in service, f"{name}: neither build nor image"
            continue
        context = (COMPOSE.parent / build["context"]).resolve()
        dockerfile = context / build["dockerfile"]
        assert context == ROOT, name
        assert dockerfile.is_file(), f"{name}: {dockerfile} missing"
        built += 1
    assert built >= 5


@pytest.mark.parametrize(
    "dockerfile", sorted((DEPLOY / "docker").glob("*.Dockerfile")), ids=lambda p: p.name
)
def test_dockerfile_copies_only_what_exists(dockerfile: Path) -> None:
    text = dockerfile.read_text()
    assert text.splitlines()[0].startswith("#") and "FROM python:3.11" in text
    sources = [
        src
        for line in text.splitlines()
        if line.startswith("COPY ")
        for src in line.split()[1:-1]
        if not src.startswith("--")
    ]
    assert sources, dockerfile
    for src in sources:
        assert (ROOT / src).exists(), f"{dockerfile.name}: COPY {src} but {ROOT / src} is missing"
    # What a COPY names must not be ignored by the image's own .dockerignore.
    ignore = Path(f"{dockerfile}.dockerignore").read_text()
    for src in sources:
        top = src.split("/")[0]
        assert f"!{src}" in ignore or f"!{top}/**" in ignore, f"{src} is excluded by .dockerignore"
    assert "USER pathways" in text, "images run unprivileged"


def test_grader_images_carry_no_service_code() -> None:
    for name in ("grader-cpu", "grader-tpu"):
        text = (DEPLOY / "docker" / f"{name}.Dockerfile").read_text()
        assert "lti_service" not in text.split("# The package list")[0]
        assert "COPY lti_service" not in text
    tpu = (DEPLOY / "docker/grader-tpu.Dockerfile").read_text()
    assert re.search(r"jax\[tpu\]==\$\{JAX_VERSION\}", tpu)


@pytest.mark.parametrize(
    "script",
    sorted(p for p in DEPLOY.rglob("*.sh")),
    ids=lambda p: str(p.relative_to(DEPLOY)),
)
def test_shell_scripts_parse(script: Path) -> None:
    result = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert script.read_text().startswith("#!/usr/bin/env bash\n")


# image -> (its lock file, the first-party packages its entry point imports)
IMAGES = {
    "service": ("requirements-service.txt",
                {"pathways", "course", "grading_contract", "lti_service"}),
    "grader-cpu": ("requirements-grader.txt",
                   {"pathways", "course", "grading_contract", "grader_worker"}),
    "grader-tpu": ("requirements-grader.txt",
                   {"pathways", "course", "grading_contract", "grader_worker"}),
}


@pytest.mark.parametrize("image", sorted(IMAGES))
def test_each_image_installs_its_own_lock_file_and_the_code_it_runs(image: str) -> None:
    lock, packages = IMAGES[image]
    text = (DEPLOY / "docker" / f"{image}.Dockerfile").read_text()
    installed = set(re.findall(r"pip install -r (\S+)", text))
    assert installed == {lock}, f"{image} installs {installed}, not only {lock}"
    copied = {line.split()[1] for line in text.splitlines() if line.startswith("COPY ")}
    assert packages <= copied, f"{image} lacks {packages - copied}"
